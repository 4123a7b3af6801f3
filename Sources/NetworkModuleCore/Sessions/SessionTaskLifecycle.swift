import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The life every session task of the framework shares, as a value: created with its
/// completion handler, resumed once, running something (a `URLSessionDataTask`, a timer, the
/// wrapped session's task, a shared call), and finished once, its handler handed out exactly
/// once, whether the answer or a cancel comes first.
///
/// A task keeps one behind its lock and asks it what to do: ``resume()`` says whether to start,
/// ``started(_:)`` whether what was started may run (a cancel may have come while it was being
/// started, and it must then be stopped), ``finish()`` hands out the handler and what runs, to
/// stop, the first time only. Each (state, event) pair is a unit test
/// (`SessionTaskLifecycleTests`).
///
/// | state | ``resume()`` | ``started(_:)`` | ``finish()`` |
/// |---|---|---|---|
/// | created | `true` → resumed | `false` | handler → finished |
/// | resumed | `false` | `true` → running | handler → finished |
/// | running | `false` | `true`, replaces what runs | handler and what runs → finished |
/// | finished | `false` | `false` | `nil` |
package struct SessionTaskLifecycle<Running> {
    package typealias Handler = @Sendable (Data?, URLResponse?, (any Error)?) -> Void

    private var handler: Handler?
    private var isResumed = false
    /// What runs for the task, once started, until it finishes.
    package private(set) var running: Running?

    package init(handler: @escaping Handler) {
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
