import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLRequest {
    /// The number of body bytes the request sends, without reading a body stream: the size of
    /// `httpBody`, or for `httpBodyStream` the length its source gave the builder, or else its
    /// `Content-Length`; `nil` when a stream's length is unknown. `0` for no body.
    package var knownBodyLength: Int? {
        if let httpBody { return httpBody.count }
        guard let stream = httpBodyStream else { return 0 }
        if let length = BodyStreams.length(of: stream) { return Int(clamping: length) }
        return value(forHTTPHeaderField: "Content-Length").flatMap { HeaderNumber.decimal($0, as: Int.self) }
    }
}
