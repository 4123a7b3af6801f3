import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("A cancelled URL load, however Foundation reports it")
struct NSErrorCancellationTests {
    @Test(
        "when an error is a cancelled URL load, as a URLError or a plain NSError, should say so",
        arguments: [
            (URLError(.cancelled) as NSError, true),
            (NSError(domain: NSURLErrorDomain, code: NSURLErrorCancelled), true),
            (URLError(.timedOut) as NSError, false),
            (NSError(domain: NSCocoaErrorDomain, code: NSURLErrorCancelled), false),
        ])
    func recognisesCancellation(error: NSError, isCancellation: Bool) {
        #expect(isURLCancellation(error) == isCancellation)
    }
}
