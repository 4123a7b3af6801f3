/// The completion handler the system gives the app when it wakes it for a background session's
/// events (`application(_:handleEventsForBackgroundURLSession:completionHandler:)`), and when
/// to call it: once the session has delivered every event (`urlSessionDidFinishEvents`).
///
/// The two may come in either order: the app creates the session at launch, and the system may
/// drain its events before the app delegate hands over the handler. A drain with no handler
/// waiting is remembered, and the next handler is called at once. Generic over the handler so
/// that every (state, event) pair is a unit test with plain values.
struct BackgroundEventsHandoff<Handler> {
    private var waiting: Handler?
    private var drainedWithoutHandler = false

    /// The app hands over the system's handler. Returns the handlers to call now: this one if the
    /// events were drained already; an earlier one still waiting (the system woke the app again
    /// before the drain), which is then done with.
    mutating func handlerGiven(_ handler: Handler) -> [Handler] {
        if drainedWithoutHandler {
            drainedWithoutHandler = false
            return [handler]
        }
        let earlier = waiting
        waiting = handler
        return earlier.map { [$0] } ?? []
    }

    /// The session delivered every event. Returns the handler to call now, if one waits.
    mutating func eventsFinished() -> [Handler] {
        guard let handler = waiting else {
            drainedWithoutHandler = true
            return []
        }
        waiting = nil
        return [handler]
    }
}
