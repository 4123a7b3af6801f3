import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the time of one attempt went on the wire: looking up the host, connecting, the TLS
/// handshake, sending the request, waiting for the first byte and receiving the body, as the
/// platform measured them (`URLSessionTaskMetrics`, for the attempt's last transaction: after
/// its redirects).
///
/// Apple platforms collect them; swift-corelibs-foundation (Linux) does not report them, so
/// there ``RequestMetrics/phases`` and ``HTTPSpan/phases`` are `nil`. A phase that did not
/// happen is `nil` too: no lookup, connection or handshake on a reused connection, nothing but
/// the answer for a response a cache served.
public struct RequestPhases: Sendable, Equatable {
    /// Looking up the host's addresses.
    public let domainLookup: DateInterval?
    /// Opening the connection, the TLS handshake included.
    public let connect: DateInterval?
    /// The TLS handshake.
    public let secureConnection: DateInterval?
    /// Writing the request, header and body.
    public let requestSent: DateInterval?
    /// From the request's last byte to the response's first: the server's time, and the
    /// round trip.
    public let waitingForFirstByte: DateInterval?
    /// From the response's first byte to its last.
    public let responseReceived: DateInterval?
    /// Whether the attempt went over a connection an earlier request opened.
    public let isReusedConnection: Bool
    /// The protocol as ALPN names it: `"http/1.1"`, `"h2"`, `"h3"`; `nil` when unknown.
    public let networkProtocolName: String?

    /// Creates phases; the platform's metrics do, tests may too.
    public init(
        domainLookup: DateInterval? = nil, connect: DateInterval? = nil, secureConnection: DateInterval? = nil,
        requestSent: DateInterval? = nil, waitingForFirstByte: DateInterval? = nil,
        responseReceived: DateInterval? = nil, isReusedConnection: Bool = false, networkProtocolName: String? = nil
    ) {
        self.domainLookup = domainLookup
        self.connect = connect
        self.secureConnection = secureConnection
        self.requestSent = requestSent
        self.waitingForFirstByte = waitingForFirstByte
        self.responseReceived = responseReceived
        self.isReusedConnection = isReusedConnection
        self.networkProtocolName = networkProtocolName
    }

    /// The version of HTTP, as OpenTelemetry's `network.protocol.version` spells it: `"1.1"`,
    /// `"2"`, `"3"`; `nil` when the protocol is unknown or not HTTP.
    public var httpVersion: String? {
        switch networkProtocolName?.lowercased() {
        case "http/1.0": "1.0"
        case "http/1.1": "1.1"
        case "h2", "h2c": "2"
        case "h3": "3"
        default: nil
        }
    }

    /// The interval from `start` to `end`, when both are known and in order.
    static func interval(_ start: Date?, _ end: Date?) -> DateInterval? {
        guard let start, let end, start <= end else { return nil }
        return DateInterval(start: start, end: end)
    }
}

#if !canImport(FoundationNetworking)
    extension RequestPhases {
        /// The phases of `metrics`' last transaction (the one after every redirect); `nil`
        /// without one.
        init?(_ metrics: URLSessionTaskMetrics) {
            guard let last = metrics.transactionMetrics.last else { return nil }
            self.init(
                domainLookup: Self.interval(last.domainLookupStartDate, last.domainLookupEndDate),
                connect: Self.interval(last.connectStartDate, last.connectEndDate),
                secureConnection: Self.interval(last.secureConnectionStartDate, last.secureConnectionEndDate),
                requestSent: Self.interval(last.requestStartDate, last.requestEndDate),
                waitingForFirstByte: Self.interval(last.requestEndDate, last.responseStartDate),
                responseReceived: Self.interval(last.responseStartDate, last.responseEndDate),
                isReusedConnection: last.isReusedConnection, networkProtocolName: last.networkProtocolName)
        }
    }
#endif
