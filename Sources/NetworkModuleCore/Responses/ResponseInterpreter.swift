import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Step 4 of the pipeline: turns what a session delivered into a response or an error.
enum ResponseInterpreter {
    static func interpret(
        data: Data?, response: URLResponse?, error: (any Error)?,
        request: URLRequest, acceptableStatusCodes: AcceptableStatusCodes, duration: TimeInterval
    ) -> Result<NetworkResponse, NetworkError> {
        if let error {
            return .failure(NetworkError(error))
        }
        guard let httpResponse = response as? HTTPURLResponse else {
            return .failure(.invalidResponse)
        }
        let body = data ?? Data()
        guard acceptableStatusCodes.contains(httpResponse.statusCode) else {
            return .failure(
                NetworkError(
                    response: HTTPErrorResponse(
                        statusCode: httpResponse.statusCode,
                        headers: HTTPHeaders(httpResponse.allHeaderFields),
                        body: body,
                        url: httpResponse.url ?? request.url)))
        }
        return .success(NetworkResponse(data: body, httpResponse: httpResponse, request: request, duration: duration))
    }
}
