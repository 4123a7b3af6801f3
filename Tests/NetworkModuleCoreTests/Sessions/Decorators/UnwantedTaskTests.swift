import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A session whose tasks record whether they were resumed and cancelled, and which runs
/// `onCreate` inside `dataTask(with:)`: the moment a decorator's task can be cancelled while
/// the wrapped session is creating the task it asked for.
final class RecordingSession: NetworkSession {
    final class Task: NetworkSessionTask {
        private let state = LockedState((resumed: false, cancelled: false))
        var resumed: Bool { state.withLock { $0.resumed } }
        var cancelled: Bool { state.withLock { $0.cancelled } }
        func resume() { state.withLock { $0.resumed = true } }
        func cancel() { state.withLock { $0.cancelled = true } }
    }

    private let state = LockedState((tasks: [Task](), onCreate: (@Sendable () -> Void)?.none))

    /// Every task created, in order.
    var tasks: [Task] { state.withLock { $0.tasks } }

    /// Runs `action` inside the next `dataTask(with:)` calls.
    func onCreate(_ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.onCreate = action }
    }

    func dataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        let onCreate = state.withLock { $0.onCreate }
        onCreate?()
        let task = Task()
        state.withLock { $0.tasks.append(task) }
        return task
    }
}

/// Issue 13, defect 2: a task the wrapped session created after the decorator's task was
/// cancelled must be cancelled, not left unresumed (swift-corelibs-foundation keeps such a
/// task, and its completion handler, until the session is invalidated).
@Suite("Decorators: a wrapped task no longer wanted")
struct UnwantedTaskTests {
    /// Resumes a task of `decorator` and cancels it from inside the wrapped session's
    /// `dataTask(with:)`; returns the wrapped task and what the decorator's task reported.
    func cancelWhileCreating(
        _ decorator: (RecordingSession) -> any NetworkSession
    ) -> (inner: [RecordingSession.Task], outcomes: SessionOutcomes) {
        let wrapped = RecordingSession()
        let session = decorator(wrapped)
        let outcomes = SessionOutcomes()
        let task = session.dataTask(with: sessionRequest("/a"), completionHandler: outcomes.handler)
        wrapped.onCreate { task.cancel() }

        task.resume()

        return (wrapped.tasks, outcomes)
    }

    @Test(
        "when a throttled task is cancelled while the wrapped task is created, should cancel that task and never resume it"
    )
    func throttled() {
        let (inner, outcomes) = cancelWhileCreating { $0.throttled(maxConcurrent: 1) }

        #expect(inner.count == 1)
        #expect(inner.first?.cancelled == true)
        #expect(inner.first?.resumed == false)
        #expect(outcomes.single?.errorCode == .cancelled)
    }

    @Test(
        "when a de-duplicated call's only caller cancels while the wrapped task is created, should cancel that task and never resume it"
    )
    func deduplicated() {
        let (inner, outcomes) = cancelWhileCreating { $0.deduplicated() }

        #expect(inner.count == 1)
        #expect(inner.first?.cancelled == true)
        #expect(inner.first?.resumed == false)
        #expect(outcomes.single?.errorCode == .cancelled)
    }

    @Test(
        "when a cached session's fetch is cancelled while the wrapped task is created, should cancel that task and never resume it"
    )
    func cached() {
        let (inner, outcomes) = cancelWhileCreating { $0.cached() }

        #expect(inner.count == 1)
        #expect(inner.first?.cancelled == true)
        #expect(inner.first?.resumed == false)
        #expect(outcomes.single?.errorCode == .cancelled)
    }

    @Test("when a wrapped task is wanted, should resume it and never cancel it")
    func wantedTaskRuns() {
        let wrapped = RecordingSession()

        wrapped.throttled(maxConcurrent: 1).start(sessionRequest("/a"))

        #expect(wrapped.tasks.count == 1)
        #expect(wrapped.tasks.first?.resumed == true)
        #expect(wrapped.tasks.first?.cancelled == false)
    }
}
