import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Thrown when Foundation refuses to create an `HTTPURLResponse` from the given values.
struct ResponseCreationError: Error, CustomStringConvertible {
    /// Which values were refused.
    let description: String
}

extension HTTPURLResponse {
    /// An HTTP/1.1 response in one line, for stubs and tests:
    /// `try HTTPURLResponse.make(statusCode: 404, headers: ["Content-Type": "application/json"])`.
    ///
    /// - Throws: an error whose description names the values, if Foundation's initializer refuses the values.
    public static func make(
        url: URL? = nil, statusCode: Int = 200, headers: HTTPHeaders = [:]
    ) throws -> HTTPURLResponse {
        guard
            let response = HTTPURLResponse(
                url: url ?? placeholderURL, statusCode: statusCode, httpVersion: "HTTP/1.1",
                headerFields: headers.dictionary)
        else {
            throw ResponseCreationError(description: "HTTPURLResponse refused status \(statusCode)")
        }
        return response
    }

    /// The URL of responses made without one.
    static let placeholderURL = URL(fileURLWithPath: "/")
}

extension NetworkResponse {
    /// A response in one line, for testing code that consumes responses:
    /// `try NetworkResponse.make(statusCode: 200, body: data)`.
    public static func make(
        statusCode: Int = 200, headers: HTTPHeaders = [:], body: Data = Data(), url: URL? = nil
    ) throws -> NetworkResponse {
        let url = url ?? HTTPURLResponse.placeholderURL
        return NetworkResponse(
            data: body, httpResponse: try .make(url: url, statusCode: statusCode, headers: headers),
            request: URLRequest(url: url))
    }

    /// A JSON response in one line: `try NetworkResponse.make(json: #"{"id":1}"#)`.
    public static func make(json: String, statusCode: Int = 200, url: URL? = nil) throws -> NetworkResponse {
        try make(statusCode: statusCode, headers: ["Content-Type": "application/json"], body: Data(json.utf8), url: url)
    }

    /// A response whose body is `value` encoded as JSON:
    /// `try NetworkResponse.make(json: User(id: 1, name: "Ada"))`.
    ///
    /// - Throws: the encoder's error, or an error saying which values Foundation refused.
    public static func make(
        json value: some Encodable, statusCode: Int = 200, encoder: JSONEncoder = JSONEncoder(), url: URL? = nil
    ) throws -> NetworkResponse {
        try make(
            statusCode: statusCode, headers: ["Content-Type": "application/json"], body: encoder.encode(value), url: url
        )
    }
}
