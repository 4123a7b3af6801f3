import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("async/await")
struct AsyncBridgeTests {
    @Test("when awaited, should return the response and the decoded value")
    func awaitSuccess() async throws {
        let session = FakeNetworkSession()
        session.stub(.any, with: .json(User(id: 7, name: "Grace")))
        let module = makeModule(session: session)

        let response = try await module.perform(request: TestRequest())
        let user = try await module.performAndDecode(request: TestRequest(), responseType: User.self)
        let typed: User = try await module.performAndDecode(request: TestRequest())

        #expect(response.statusCode == 200)
        #expect(user == User(id: 7, name: "Grace"))
        #expect(typed == user)
    }

    @Test("when the request fails, should throw the NetworkError")
    func awaitFailure() async {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(401))
        let module = makeModule(session: session)

        await #expect(throws: NetworkError.self) { try await module.perform(request: TestRequest()) }
        do {
            _ = try await module.perform(request: TestRequest())
        } catch {
            #expect(error.statusCode == 401)
        }
    }

    @Test("when the Task is cancelled in flight, should cancel the request and throw .cancelled")
    func taskCancellationCancelsRequest() async {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200))
        let module = makeModule(session: session)

        let task = Task { () throws(NetworkError) -> NetworkResponse in
            try await module.perform(request: TestRequest())
        }
        while session.heldCount == 0 { await Task.yield() }
        task.cancel()
        let result = await task.result

        #expect(throws: NetworkError.cancelled) { try result.get() }
        #expect(session.cancelledCount == 1)
    }

    @Test("when the Task is already cancelled, should not send and throw .cancelled")
    func alreadyCancelledTask() async {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200))
        let module = makeModule(session: session)
        let gate = LockedState(false)

        let task = Task { () throws(NetworkError) -> NetworkResponse in
            while !gate.value { await Task.yield() }
            return try await module.perform(request: TestRequest())
        }
        task.cancel()
        gate.withLock { $0 = true }
        let result = await task.result

        #expect(throws: NetworkError.cancelled) { try result.get() }
        #expect(session.heldCount == 0, "nothing is left waiting for an answer")
    }

    @Test("when awaiting a raw URLRequest, should go through the same pipeline")
    func awaitURLRequest() async throws {
        let session = FakeNetworkSession()
        session.stub(.path("/raw"), with: .json(User(id: 1, name: "Ada")))
        let module = makeModule(session: session, actions: [ProbeAction(prepare: .setHeader("X-Action", "ran"))])
        let request = URLRequest(url: try #require(URL(string: "https://other.example.com/raw")))

        let user = try await module.performAndDecode(urlRequest: request, responseType: User.self)

        #expect(user.id == 1)
        #expect(session.recordedRequests.first?.value(forHTTPHeaderField: "X-Action") == "ran")
    }
}
