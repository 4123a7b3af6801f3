import Foundation

/// The HTTP status codes a request treats as success.
///
/// Any other status becomes a ``NetworkError`` that carries the status, headers and body.
/// The default is ``successful`` (`200..<300`).
///
/// ```swift
/// var acceptableStatusCodes: AcceptableStatusCodes { [200, 304] }
/// var acceptableStatusCodes: AcceptableStatusCodes { AcceptableStatusCodes(200..<400) }
/// ```
public struct AcceptableStatusCodes: Sendable, Hashable, ExpressibleByArrayLiteral {
    private let ranges: [Range<Int>]

    /// `200..<300`: every 2xx status.
    public static let successful = AcceptableStatusCodes(200..<300)

    /// Creates a set from ranges of status codes.
    public init(_ ranges: Range<Int>...) {
        self.ranges = ranges
    }

    /// Creates a set from single status codes: `[200, 304]`.
    public init(arrayLiteral codes: Int...) {
        self.ranges = codes.map { $0..<($0 + 1) }
    }

    /// Whether `statusCode` counts as success.
    public func contains(_ statusCode: Int) -> Bool {
        ranges.contains { $0.contains(statusCode) }
    }
}
