import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Request identifiers")
struct RequestIdentifiersTests {
    @Test("should be unique, version 4 and of the RFC 4122 variant")
    func uniqueAndWellFormed() {
        let count = ModuleRequestCount()
        let identifiers = (0..<10_000).map { _ in RequestIdentifiers.next(in: count).id }

        #expect(Set(identifiers).count == identifiers.count)
        for identifier in identifiers.prefix(100) {
            #expect(identifier.uuid.6 >> 4 == 4, "version nibble of \(identifier)")
            #expect(identifier.uuid.8 >> 6 == 0b10, "variant bits of \(identifier)")
        }
    }

    @Test("when many threads take identifiers at once, should still never repeat one")
    func uniqueAcrossThreads() async {
        let identifiers = await withTaskGroup(of: [UUID].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<2_000).map { _ in RequestIdentifiers.next(in: ModuleRequestCount()).id } }
            }
            var all: [UUID] = []
            for await batch in group { all += batch }
            return all
        }

        #expect(Set(identifiers).count == 16_000)
    }

    @Test("when a module performs requests, should number them 1, 2, 3 in its own count, the same on every attempt")
    func sequenceNumbers() {
        /// Records the sequence number of every hook it sees.
        final class SequenceProbe: NetworkModuleAction {
            let seen = LockedState<[Int]>([])
            func prepare(
                _ urlRequest: URLRequest, context: ActionContext,
                completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
            ) {
                seen.withLock { $0.append(context.sequenceNumber) }
                completion(.success(urlRequest))
            }
        }
        let session = FakeNetworkSession()
        session.stub(.path("/v2/retried"), with: .status(503), .status(200))
        session.stub(.path("/v2/users/1"), with: .status(200))
        let probe = SequenceProbe()
        let otherProbe = SequenceProbe()
        let module = makeModule(session: session, actions: [probe, ProbeAction(retry: [.retry])])
        let otherModule = makeModule(session: session, actions: [otherProbe])

        module.perform(request: TestRequest()) { _ in }
        otherModule.perform(request: TestRequest()) { _ in }
        module.perform(request: TestRequest(path: "/retried")) { _ in }
        module.perform(urlRequest: URLRequest(url: URL(string: "https://api.example.com/v2/users/1")!)) { _ in }

        #expect(probe.seen.value == [1, 2, 2, 3])
        #expect(otherProbe.seen.value == [1])
    }
}
