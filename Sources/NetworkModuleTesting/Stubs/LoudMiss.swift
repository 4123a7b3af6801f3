import Foundation

/// How the kit fails a request it has no answer for, in one place for the fake session, the
/// fake module and the replay session: the message goes to standard error and to the
/// caller's hook, and the request is answered with a `501 Not Implemented` whose body is the
/// message, so the code under test sees a server error that says what was missing.
enum LoudMiss {
    /// The status a missed request is answered with.
    static let statusCode = 501

    /// Reports `message` and returns the answer for the missed request.
    static func report(_ message: String, to hook: (@Sendable (String) -> Void)?) -> StubbedResponse {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        hook?(message)
        return .text(message, status: statusCode)
    }

    /// `GET https://…`, the way every miss message names a request.
    static func describe(method: String?, url: URL?) -> String {
        "\(method ?? "GET") \(url?.absoluteString ?? "(no URL)")"
    }
}
