import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `Content-Range` of a `206 Partial Content` response (RFC 9110 §14.4): `bytes 100-199/200`
/// or `bytes 100-199/*`.
struct ContentRange: Equatable {
    /// The first byte's offset.
    let start: Int64
    /// The last byte's offset.
    let end: Int64
    /// The whole representation's length; `nil` for `*`.
    let completeLength: Int64?
    /// The number of bytes the range holds.
    let length: Int64

    /// Parses `value`; `nil` for anything but a well-formed byte range with `start <= end` (and
    /// `end` below a known complete length), whose length an `Int64` holds: `bytes
    /// 0-9223372036854775807/*` is no range, for no body can be that long.
    init?(_ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst("bytes ".count).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = HeaderNumber.decimal(bounds[0]),
            let end = HeaderNumber.decimal(bounds[1]), start <= end
        else { return nil }
        // `end - start` cannot overflow (0 <= start <= end); one more byte can.
        let (length, overflowed) = (end - start).addingReportingOverflow(1)
        guard !overflowed else { return nil }
        let completeLength: Int64?
        if halves[1] == "*" {
            completeLength = nil
        } else {
            guard let complete = HeaderNumber.decimal(halves[1]), end < complete else { return nil }
            completeLength = complete
        }
        self.start = start
        self.end = end
        self.completeLength = completeLength
        self.length = length
    }

    /// The range `response` declares, if it declares a valid one.
    init?(of response: HTTPURLResponse) {
        guard let value = response.value(forHTTPHeaderField: "Content-Range") else { return nil }
        self.init(value)
    }

    /// The single byte range a request's `Range` header asks for (RFC 9110 §14.1.2): `bytes=100-`
    /// or `bytes=100-199`. A suffix range (`bytes=-500`) or a list of ranges is not one.
    struct Requested: Equatable {
        /// The first byte asked for.
        let start: Int64
        /// The last byte asked for; `nil` for "to the end".
        let end: Int64?

        /// The range `request` asks for; `nil` when it sends no `Range`, or one that is not a
        /// single byte range from a first byte.
        init?(of request: URLRequest) {
            guard let value = request.value(forHTTPHeaderField: "Range") else { return nil }
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            guard trimmed.lowercased().hasPrefix("bytes=") else { return nil }
            let bounds = trimmed.dropFirst("bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2,
                let start = HeaderNumber.decimal(bounds[0].trimmingCharacters(in: .whitespaces))
            else { return nil }
            let last = bounds[1].trimmingCharacters(in: .whitespaces)
            if last.isEmpty {
                self.start = start
                self.end = nil
            } else {
                guard let end = HeaderNumber.decimal(last), start <= end else { return nil }
                self.start = start
                self.end = end
            }
        }
    }

    /// The bytes of the file that the `2xx` `response` to `request` continues, after checking
    /// that a `206 Partial Content` answers the range `request` asked for, and the whole of it:
    /// the same first byte, and the last byte asked for (for `bytes=N-`, the representation's
    /// last byte, when its complete length is known). `resumingAt` is what the file holds
    /// already (the bytes before the asked range, when the framework resumes a download; none
    /// for a range the caller set). Any other `2xx` continues nothing.
    ///
    /// Throws `URLError.cannotParseResponse`, saying what the server sent and what was asked,
    /// for a `206` to a request that asked for no range, and for one that does not answer it.
    static func keptBytes(of response: HTTPURLResponse, to request: URLRequest, resumingAt: Int64) throws(URLError)
        -> Int64
    {
        guard response.statusCode == 206 else { return 0 }
        let declared = response.value(forHTTPHeaderField: "Content-Range") ?? "none"
        guard let asked = Requested(of: request) else {
            throw partialContentError(
                "The server sent 206 Partial Content (Content-Range \(declared)) to a request that asked for the "
                    + "whole representation.", response)
        }
        let askedText = request.value(forHTTPHeaderField: "Range") ?? ""
        guard let range = ContentRange(of: response) else {
            throw partialContentError(
                "The server sent 206 Partial Content with Content-Range \(declared), which is not a valid byte range "
                    + "(RFC 9110 §14.4), or one longer than any file can be.", response)
        }
        guard range.start == asked.start else {
            throw partialContentError(
                "The server sent 206 Partial Content with Content-Range \(declared), which does not start where the "
                    + "request's Range \(askedText) asked.", response)
        }
        let lastByte = range.completeLength.map { $0 - 1 }
        let expectedEnd = asked.end.map { askedEnd in lastByte.map { min(askedEnd, $0) } ?? askedEnd } ?? lastByte
        if let expectedEnd, range.end != expectedEnd {
            throw partialContentError(
                "The server sent 206 Partial Content with Content-Range \(declared), which stops short of what the "
                    + "request's Range \(askedText) asked: the file would not hold the whole of it.", response)
        }
        return resumingAt
    }

    /// A `URLError.cannotParseResponse` saying `message`, for `response`'s URL.
    static func partialContentError(_ message: String, _ response: HTTPURLResponse) -> URLError {
        URLError(.cannotParseResponse, message: message, failingURL: response.url)
    }
}
