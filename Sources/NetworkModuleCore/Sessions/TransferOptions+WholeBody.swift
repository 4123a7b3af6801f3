import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The options applied to a response whose body arrived whole, in memory: for a
/// ``BufferedSession``, and for the testing library's sessions, whose bodies are held whole.
extension TransferOptions {
    /// `completionHandler`, preceded by these options applied to the body of `request` that
    /// arrived whole: a 2xx body handed to a sink as one chunk, or written to a file, and the
    /// final progress reported.
    package func appliedToWholeBody(
        of request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> @Sendable (Data?, URLResponse?, (any Error)?) -> Void {
        guard needsApplying else { return completionHandler }
        return { data, response, error in
            if case .chunks(let sink) = destination, error == nil,
                let response = response as? HTTPURLResponse,
                AcceptableStatusCodes.successful.contains(response.statusCode)
            {
                // The whole body as one chunk; the task ends once the sink has taken it.
                ChunkFeeder.feed(data ?? Data(), of: response, in: .max, to: sink) {
                    completionHandler(nil, response, nil)
                }
                return
            }
            let (data, error) = complete(request: request, data: data, response: response, error: error)
            completionHandler(data, response, error)
        }
    }

    /// Reports the final progress, writes a successful body where ``destination`` says, and
    /// returns the data and error to complete the task with.
    private func complete(
        request: URLRequest, data: Data?, response: URLResponse?, error: (any Error)?
    ) -> (data: Data?, error: (any Error)?) {
        guard error == nil, let response = response as? HTTPURLResponse else { return (data, error) }
        let body = data ?? Data()
        if let sent = request.httpBody, !sent.isEmpty { report(isUpload: true, Int64(sent.count)) }
        guard case .file(let url, let resumingAt) = destination,
            AcceptableStatusCodes.successful.contains(response.statusCode)
        else {
            report(isUpload: false, Int64(body.count))
            return (data, nil)
        }
        do throws(URLError) {
            let kept = try ContentRange.keptBytes(of: response, to: request, resumingAt: resumingAt)
            let file = try TransferFile(url: url, keeping: kept)
            try file.write(body)
            report(isUpload: false, kept + Int64(body.count))
            return (nil, nil)
        } catch {
            return (nil, error)
        }
    }

    /// Tells ``progress`` that one direction moved all its `bytes`.
    private func report(isUpload: Bool, _ bytes: Int64) {
        progress?(TransferProgress(isUpload: isUpload, completedBytes: bytes, expectedBytes: bytes))
    }
}
