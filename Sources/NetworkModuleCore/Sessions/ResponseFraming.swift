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
    static func failure(of response: HTTPURLResponse, method: String?, receivedBytes: Int) -> URLError.Code? {
        // Three look-ups, not an `HTTPHeaders` of every field: this runs for every response.
        if response.value(forHTTPHeaderField: "Transfer-Encoding") != nil { return nil }
        guard let field = response.value(forHTTPHeaderField: "Content-Length") else { return nil }
        guard let declared = contentLength(field) else { return .badServerResponse }
        let status = response.statusCode
        let hasNoBody = method?.uppercased() == "HEAD" || (100..<200).contains(status) || status == 204 || status == 304
        let coding =
            response.value(forHTTPHeaderField: "Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased()
            ?? ""
        guard !hasNoBody, coding.isEmpty || coding == "identity" else { return nil }
        return receivedBytes < declared ? .networkConnectionLost : nil
    }

    /// The length a `Content-Length` field value declares: one non-negative decimal number
    /// that fits an `Int`, or a list of the same number repeated (`5, 5`, which RFC 9112 lets a
    /// recipient accept); `nil` for anything else.
    static func contentLength(_ value: String) -> Int? {
        var length: Int?
        for element in value.split(separator: ",", omittingEmptySubsequences: false) {
            let digits = element.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let number = Int(digits), length == nil || length == number
            else { return nil }
            length = number
        }
        return length
    }
}
