/// The life of a task that can be cancelled before what it runs exists, as a value: resumed
/// once, running something once started, finished once (answer or cancel, whichever comes
/// first), when it hands out its handler.
///
/// A session task (``SessionTaskLifecycle``) runs a `URLSessionDataTask`, a timer, the wrapped
/// session's task or a shared call, and hands out its completion handler. A caller's handle (the
/// async bridge, ``TransferTask``, ``ResponseStream``, the Combine subscription) runs the module's
/// request, whose handle exists only once the call that starts it returns: after a cancel,
/// ``started(_:)`` says to cancel that handle as soon as it exists.
///
/// An owner keeps one behind its lock and does what it answers, as the table says (each pair is
/// a unit test in `TaskLifecycleTests`): what was started while a cancel came must be stopped.
///
/// | state | ``resume()`` | ``started(_:)`` | ``finish()`` |
/// |---|---|---|---|
/// | created | `true` → resumed | `false` | handler → finished |
/// | resumed | `false` | `true` → running | handler → finished |
/// | running | `false` | `true`, replaces what runs | handler and what runs → finished |
/// | finished | `false` | `false` | `nil` |
package struct TaskLifecycle<Running, Handler> {
    private var handler: Handler?
    /// Whether ``resume()`` started the task: a task finished before it was resumed never ran.
    package private(set) var isResumed = false
    /// What runs for the task, once started, until it finishes.
    package private(set) var running: Running?

    package init(handler: Handler) {
        self.handler = handler
    }

    /// Whether the task has finished: answered or cancelled.
    package var isFinished: Bool { handler == nil }

    /// `resume()` was called: `true` the first time, for a task that has not finished, which
    /// must then start.
    package mutating func resume() -> Bool {
        guard !isResumed, handler != nil else { return false }
        isResumed = true
        return true
    }

    /// The task started `running` (or, for a task that follows a redirect itself, runs something
    /// new): `true` if it may run; `false` for a task that was not resumed or has finished, whose
    /// `running` must be stopped.
    package mutating func started(_ running: Running) -> Bool {
        guard isResumed, handler != nil else { return false }
        self.running = running
        return true
    }

    /// Finishes the task: its handler, and what runs for it, to stop; `nil` once it has finished.
    package mutating func finish() -> (handler: Handler, running: Running?)? {
        guard let handler = handler.take() else { return nil }
        return (handler, running.take())
    }
}

/// The life of a session task: a ``TaskLifecycle`` that hands out the task's completion handler.
package typealias SessionTaskLifecycle<Running> = TaskLifecycle<Running, SessionCompletionHandler>

extension LockedState {
    /// Starts a caller's request with `start`, unless this life was resumed already or finished
    /// (cancelled) before: returns whether `start` ran. A cancel that comes while `start` runs
    /// cancels the request as soon as its handle exists.
    @discardableResult
    func start<Handler>(_ start: () -> any NetworkCancellable) -> Bool
    where State == TaskLifecycle<any NetworkCancellable, Handler> {
        guard withLock({ $0.resume() }) else { return false }
        let request = start()
        if !withLock({ $0.started(request) }) { request.cancel() }
        return true
    }

    /// Cancels a caller's request: finishes this life and cancels the request if its handle
    /// exists (if `start` is running, ``start(_:)`` cancels it when it returns). Returns `true`
    /// the first time for a request that never started, which nothing else will end.
    @discardableResult
    func cancel<Handler>() -> Bool where State == TaskLifecycle<any NetworkCancellable, Handler> {
        let ended = withLock { life in life.finish().map { (life.isResumed, $0.running) } }
        guard let (started, request) = ended else { return false }
        request?.cancel()
        return !started
    }
}
