import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension NSError {
    /// Whether this error is a cancelled URL load (`NSURLErrorDomain`, `NSURLErrorCancelled`),
    /// whichever way it came: a `URLError` bridged to `NSError`, or the plain `NSError` that
    /// swift-corelibs-foundation's tasks end with, which is not a `URLError`.
    package var isURLCancellation: Bool {
        domain == NSURLErrorDomain && code == NSURLErrorCancelled
    }
}
