import Foundation

/// Whether `error` is a cancelled URL load (`NSURLErrorDomain`, `NSURLErrorCancelled`),
/// whichever way it came: a `URLError` bridged to `NSError`, or the plain `NSError` that
/// swift-corelibs-foundation's tasks end with, which is not a `URLError`.
///
/// A function, not an extension of `NSError`: the API digester lists a Foundation class a
/// module extends, even with `package` members only, as added to the public API.
package func isURLCancellation(_ error: NSError) -> Bool {
    error.domain == NSURLErrorDomain && error.code == NSURLErrorCancelled
}
