import Foundation
import NetworkModuleTesting
import Testing

@testable import NetworkModuleCore

/// The one decision taken from the system's path status, without a monitor: which of the three
/// states `NWPathMonitor` reports lets a waiting request be sent.
@Suite("PathStatus")
struct PathStatusTests {
    @Test(
        "when the path is satisfied or requires a connection, should count the network as reachable",
        arguments: [(PathStatus.satisfied, true), (.requiresConnection, true), (.unsatisfied, false)])
    func reachability(status: PathStatus, reachable: Bool) {
        #expect(status.isReachable == reachable)
    }

    @Test("when the path comes to require a connection, should release the requests waiting for the network")
    func requiresConnectionReleasesWaiters() {
        var list = ConnectivityWaitlist(isReachable: PathStatus.unsatisfied.isReachable)
        let resumed = LockedState<[Bool]>([])
        let waits = list.wait(UUID(), resume: { reachable in resumed.withLock { $0.append(reachable) } })
        #expect(waits)

        list.update(isReachable: PathStatus.requiresConnection.isReachable).perform()

        #expect(resumed.withLock { $0 } == [true])
        #expect(list.count == 0)
    }
}
