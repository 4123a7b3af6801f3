import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension LinuxURLSessionQuirks {
    /// The task that sends `request` in `session`, its body stream framed correctly.
    ///
    /// swift-corelibs-foundation sends every `httpBodyStream` with chunked transfer coding (it
    /// cannot tell libcurl a stream's length), and sends a `Content-Length` the request sets
    /// as well: both framings at once, which servers must refuse (RFC 9112 §6.3). So on Linux
    /// a stream that reads a file whole (``RequestBody/file(_:contentType:)``, a multipart form
    /// encoded to disk) is sent as an upload of that file, whose length libcurl then sends as
    /// the `Content-Length`; any other stream is sent chunked, without its `Content-Length`.
    /// On Apple platforms the request is sent as it is, `Content-Length` and all.
    static func task(
        in session: URLSession, for request: URLRequest,
        completionHandler: (@Sendable (Data?, URLResponse?, (any Error)?) -> Void)? = nil
    ) -> URLSessionDataTask {
        guard apply, let stream = request.httpBodyStream else {
            return dataTask(in: session, for: request, completionHandler: completionHandler)
        }
        var outgoing = request
        if let file = BodyStreams.file(of: stream) {
            outgoing.httpBodyStream = nil
            if let completionHandler {
                return session.uploadTask(with: outgoing, fromFile: file, completionHandler: completionHandler)
            }
            return session.uploadTask(with: outgoing, fromFile: file)
        }
        outgoing.setValue(nil, forHTTPHeaderField: "Content-Length")
        return dataTask(in: session, for: outgoing, completionHandler: completionHandler)
    }

    private static func dataTask(
        in session: URLSession, for request: URLRequest,
        completionHandler: (@Sendable (Data?, URLResponse?, (any Error)?) -> Void)?
    ) -> URLSessionDataTask {
        guard let completionHandler else { return session.dataTask(with: request) }
        return session.dataTask(with: request, completionHandler: completionHandler)
    }
}
