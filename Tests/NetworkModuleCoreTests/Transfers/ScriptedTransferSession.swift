import Foundation
import NetworkModuleCore
import NetworkModuleTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A session whose every transfer task is answered by `answer` when resumed, on the resuming
/// thread; it records each task's request and transfer, and can hold answers until released.
final class ScriptedTransferSession: TransferringSession {
    typealias Answer =
        @Sendable (_ attempt: Int, _ request: URLRequest, _ transfer: TransferOptions) -> (
            Data?, URLResponse?, (any Error)?
        )

    struct Call: Sendable {
        let request: URLRequest
        let destination: TransferOptions.Destination
        let reportsProgress: Bool
    }

    private struct State {
        var calls: [Call] = []
        var held: [@Sendable () -> Void] = []
    }

    private let answer: Answer
    private let holds: Bool
    private let state = LockedState(State())

    init(holds: Bool = false, answer: @escaping Answer) {
        self.answer = answer
        self.holds = holds
    }

    var calls: [Call] { state.withLock { $0.calls } }

    /// Answers every held task, in order.
    func releaseAll() {
        let held = state.withLock { state in
            defer { state.held = [] }
            return state.held
        }
        for answer in held { answer() }
    }

    func transferTask(
        with request: URLRequest, transfer: TransferOptions,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        let attempt = state.withLock { state in
            state.calls.append(
                Call(request: request, destination: transfer.destination, reportsProgress: transfer.progress != nil))
            return state.calls.count
        }
        let run: @Sendable () -> Void = { [answer] in
            let (data, response, error) = answer(attempt, request, transfer)
            completionHandler(data, response, error)
        }
        return ScriptedTask { [holds, state] in
            if holds {
                state.withLock { $0.held.append(run) }
            } else {
                run()
            }
        }
    }
}

private struct ScriptedTask: NetworkSessionTask {
    let onResume: @Sendable () -> Void
    func resume() { onResume() }
    func cancel() {}
}

/// A response to `request` with `status` and `headers`.
func httpResponse(_ request: URLRequest, status: Int = 200, headers: [String: String] = [:]) -> HTTPURLResponse? {
    HTTPURLResponse(url: request.url ?? apiBaseURL, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
}

/// Writes `data` where `transfer` says, as a streaming session would, keeping `kept` bytes.
func writeBody(_ data: Data, for transfer: TransferOptions, keeping kept: Int64 = 0) throws {
    guard case .file(let url, _) = transfer.destination else { return }
    let existing = (try? Data(contentsOf: url)) ?? Data()
    try (existing.prefix(Int(kept)) + data).write(to: url)
}

/// A module on `session` with the immediate executor and a manual scheduler.
func makeTransferModule(
    session: some NetworkSession, actions: [any NetworkModuleAction] = [],
    scheduler: ManualDelayScheduler = ManualDelayScheduler()
) -> DefaultNetworkModule {
    DefaultNetworkModule(
        requestBuilder: DefaultRequestBuilder(baseURL: apiBaseURL), session: session, actions: actions,
        completionExecutor: .immediate, delayScheduler: scheduler)
}
