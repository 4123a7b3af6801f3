import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The checks on a response's framing (RFC 9112 §6.3) that `URLSession` leaves out on Linux,
/// made by ``URLSessionTransport`` before it reports a response as received.
///
/// - A `Content-Length` that is not one non-negative decimal number (two different values,
///   `5, 26`, a value of 26 digits, `5x`) is an unrecoverable framing error: the response
///   fails with `URLError.badServerResponse`, whatever part of the body arrived.
/// - A body shorter than its declared length is never a success: it fails with
///   `URLError.networkConnectionLost`, as Apple's `URLSession` reports a connection closed
///   mid-body. Not checked when a content coding applies (the body delivered is decoded, so
///   its length is not the declared one), for `HEAD`, and for statuses without a body
///   (1xx, 204, 304).
/// - With `Transfer-Encoding`, `Content-Length` is ignored, as RFC 9112 says.
enum ResponseFraming {
    /// The error code for `response` whose body, as delivered, has `receivedBytes` bytes, to a
    /// request with `method`; `nil` when its framing is sound.
    static func failure(
        of response: HTTPURLResponse, method: @autoclosure () -> String?, receivedBytes: Int
    ) -> URLError.Code? {
        // Runs for every response, and on Linux each field look-up upper-cases every name: the
        // usual case (a sound length) is settled with one; the others only when it may fail.
        guard let field = response.value(forHTTPHeaderField: "Content-Length") else { return nil }
        let declared = contentLength(field)
        if let declared, receivedBytes >= declared { return nil }
        // With Transfer-Encoding, Content-Length is ignored.
        if response.value(forHTTPHeaderField: "Transfer-Encoding") != nil { return nil }
        // An invalid length is an error; a valid one is longer than the body (checked above).
        guard declared != nil else { return .badServerResponse }
        guard lengthCountsDeliveredBytes(of: response, method: method()) else { return nil }
        return .networkConnectionLost
    }

    /// The number of body bytes `response` will deliver, as its `Content-Length` declares, to a
    /// request with `method`: `nil` when the length is unknown or invalid, `Transfer-Encoding`
    /// overrides it, or it does not count the delivered bytes (``lengthCountsDeliveredBytes(of:method:)``).
    /// ``URLSessionTransport`` refuses a body over its size limit from this, before it arrives.
    static func declaredBodyLength(of response: HTTPURLResponse, method: String?) -> Int? {
        guard let field = response.value(forHTTPHeaderField: "Content-Length"),
            let declared = contentLength(field),
            response.value(forHTTPHeaderField: "Transfer-Encoding") == nil
        else { return nil }
        guard lengthCountsDeliveredBytes(of: response, method: method) else { return nil }
        return declared
    }

    /// Whether `response`'s `Content-Length` counts the body bytes it delivers to a request with
    /// `method`: not for `HEAD` or a status without a body (1xx, 204, 304), whose length describes
    /// another response, nor under a content coding, whose length counts the encoded bytes while
    /// the delivered ones are decoded.
    private static func lengthCountsDeliveredBytes(of response: HTTPURLResponse, method: String?) -> Bool {
        let status = response.statusCode
        let hasNoBody = method?.uppercased() == "HEAD" || (100..<200).contains(status) || status == 204 || status == 304
        let coding =
            response.value(forHTTPHeaderField: "Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased()
            ?? ""
        return !hasNoBody && (coding.isEmpty || coding == "identity")
    }

    /// The length a `Content-Length` field value declares: one non-negative decimal number
    /// that fits an `Int`, or a list of the same number repeated (`5, 5`, which RFC 9112 lets a
    /// recipient accept), with spaces or tabs around each; `nil` for anything else.
    static func contentLength(_ value: String) -> Int? {
        var length: Int?
        for element in value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            var digits = element[...]
            while let first = digits.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
                digits = digits.dropFirst()
            }
            while let last = digits.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
                digits = digits.dropLast()
            }
            guard let number = HeaderNumber.decimal(bytes: digits, as: Int.self), length == nil || length == number
            else { return nil }
            length = number
        }
        return length
    }
}
