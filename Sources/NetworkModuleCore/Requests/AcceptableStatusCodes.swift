import Foundation

/// The HTTP status codes a request treats as success.
///
/// Any other status becomes a ``NetworkError`` that carries the status, headers and body.
/// A request's default is ``moduleDefault``: the codes its module accepts, which are
/// ``successful`` (`200..<300`) unless the module is created with others:
///
/// ```swift
/// // Every request that does not name its own codes accepts 200 to 399, as the ancestor module did.
/// let module = DefaultNetworkModule(requestBuilder: builder, acceptableStatusCodes: AcceptableStatusCodes(200..<400))
/// ```
///
/// ```swift
/// var acceptableStatusCodes: AcceptableStatusCodes { [200, 304] }  // or AcceptableStatusCodes(200..<400)
/// ```
///
/// Any `Int` values make a set, with no trap: negative codes and codes up to `Int.max` are
/// accepted as given (a server never sends them, so they match nothing), an empty range adds
/// nothing, and an empty set accepts no status at all. Two sets are equal when they accept the
/// same codes, however they were written: `[200, 201]` equals `AcceptableStatusCodes(200..<202)`.
/// ``moduleDefault`` is equal only to itself: which codes it stands for is the module's choice.
public struct AcceptableStatusCodes: Sendable, Hashable, ExpressibleByArrayLiteral {
    /// The accepted codes as closed ranges, sorted, with no two overlapping or adjacent: one
    /// value for one set of codes. Closed, so that `Int.max` needs no `+ 1`.
    private let ranges: [ClosedRange<Int>]
    /// Whether this is ``moduleDefault``: the module replaces it with its own codes.
    private let defersToModule: Bool

    /// `200..<300`: every 2xx status.
    public static let successful = AcceptableStatusCodes(200..<300)

    /// The codes of the module that performs the request: the `acceptableStatusCodes` it was
    /// created with, ``successful`` unless it was given others. The default of
    /// ``NetworkRequest/acceptableStatusCodes``. Where there is no module to ask,
    /// ``contains(_:)`` answers as ``successful`` does.
    public static let moduleDefault = AcceptableStatusCodes(deferringTo: successful)

    /// Creates a set from ranges of status codes. Empty ranges add nothing.
    public init(_ ranges: Range<Int>...) {
        // A non-empty range's upper bound is above its lower bound, so `- 1` cannot overflow.
        self.init(closedRanges: ranges.compactMap { $0.isEmpty ? nil : $0.lowerBound...($0.upperBound - 1) })
    }

    /// Creates a set from single status codes: `[200, 304]`.
    public init(arrayLiteral codes: Int...) {
        self.init(closedRanges: codes.map { $0...$0 })
    }

    /// The codes of `closed`, in any order, overlapping or not: how every set is made, and how a
    /// background transfer reads back the ``closedRanges`` it wrote down.
    init(closedRanges closed: [ClosedRange<Int>]) {
        var merged: [ClosedRange<Int>] = []
        for range in closed.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            // Merge when `range` overlaps or touches the last one; `last.upperBound < Int.max`
            // is checked first, so `+ 1` cannot overflow.
            if let last = merged.last,
                last.upperBound == Int.max || range.lowerBound <= last.upperBound + 1
            {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        self.ranges = merged
        self.defersToModule = false
    }

    /// The accepted codes as closed ranges, sorted and apart: what a background transfer writes
    /// down to judge its response after a relaunch.
    var closedRanges: [ClosedRange<Int>] { ranges }

    private init(deferringTo codes: AcceptableStatusCodes) {
        self.ranges = codes.ranges
        self.defersToModule = true
    }

    /// These codes, or `moduleDefault` if these are ``moduleDefault``.
    func resolved(moduleDefault: AcceptableStatusCodes) -> AcceptableStatusCodes {
        defersToModule ? moduleDefault : self
    }

    /// Whether `statusCode` counts as success.
    public func contains(_ statusCode: Int) -> Bool {
        ranges.contains { $0.contains(statusCode) }
    }
}
