import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("FakeNetworkSession thread safety")
struct FakeNetworkSessionConcurrencyTests {
    @Test("when many threads stub and send at once, should record and answer every request exactly once")
    func concurrentStubbingAndSending() {
        let session = FakeNetworkSession()
        session.stub(.any, with: .status(200))
        let logs = (0..<400).map { _ in AnswerLog() }

        DispatchQueue.concurrentPerform(iterations: logs.count) { index in
            if index.isMultiple(of: 10) { session.stub(.path("/never"), with: .status(500)) }
            session.send(makeURLRequest("/items/\(index)"), into: logs[index])
        }

        #expect(logs.allSatisfy { $0.single?.statusCode == 200 })
        #expect(Set(session.recordedRequests.compactMap(\.url?.path)).count == logs.count)
        #expect(session.unmatchedRequests.isEmpty)
    }

    @Test("when a sequence is consumed from many threads, should hand out each response once, then repeat the last")
    func concurrentSequence() {
        let session = FakeNetworkSession()
        session.stub(.any, sequence: (0..<50).map { .status(200 + $0) } + [.status(299)])
        let logs = (0..<100).map { _ in AnswerLog() }

        DispatchQueue.concurrentPerform(iterations: logs.count) { index in
            session.send(makeURLRequest("/"), into: logs[index])
        }

        let statuses = logs.compactMap { $0.single?.statusCode }
        #expect(statuses.count == 100)
        #expect(Set(statuses.filter { $0 < 250 }) == Set(200..<250))
        #expect(statuses.filter { $0 == 299 }.count == 50)
    }

    @Test("when held answers are released and cancelled from many threads, should answer each task exactly once")
    func concurrentReleaseAndCancel() {
        let session = FakeNetworkSession(holdingResponses: true)
        session.stub(.any, with: .status(200))
        let sent = (0..<200).map { session.send(makeURLRequest("/\($0)")) }

        DispatchQueue.concurrentPerform(iterations: sent.count) { index in
            if index.isMultiple(of: 2) { sent[index].task.cancel() } else { session.releaseNext() }
        }
        session.releaseAll()

        #expect(sent.allSatisfy { $0.log.count == 1 })
        #expect(session.heldCount == 0)
        #expect(sent.filter { $0.log.single?.urlErrorCode == .cancelled }.count == session.cancelledCount)
    }

    @Test("when a module sends through the fake from many threads, should deliver each request exactly once")
    func concurrentModule() {
        let session = FakeNetworkSession()
        session.stub(.pathPrefix("/users"), with: .json(User(id: 1, name: "Ada")))
        let executor = RecordingExecutor()
        let module = DefaultNetworkModule(
            requestBuilder: DefaultRequestBuilder(baseURL: kitBaseURL), session: session, completionExecutor: executor)
        let results = Results<User>()

        DispatchQueue.concurrentPerform(iterations: 300) { index in
            module.performAndDecode(
                request: GetUser(id: index), responseType: User.self, completion: results.completion)
        }

        #expect(results.count == 300)
        #expect(results.all.allSatisfy { (try? $0.get()) == User(id: 1, name: "Ada") })
        #expect(executor.deliveryCount == 300)
        #expect(session.recordedRequests.count == 300)
    }
}
