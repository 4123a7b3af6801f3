import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The entries of a HAR archive ready to answer requests, and where each sequence of
/// answers to the same request has got to.
final class ReplayBook: Sendable {
    private struct Entry: Sendable {
        let method: String
        let url: String
        let body: Data
        let answer: StubbedResponse

        var name: String { "\(method) \(url)" }
    }

    private struct State {
        /// How many times each group of matching entries has answered, by the group's first index.
        var served: [Int: Int] = [:]
        var missed: [URLRequest] = []
    }

    private let entries: [Entry]
    /// Whether a request's body must equal the recorded one too (see `HARReplaySession`).
    private let matchesBodies: Bool
    private let redaction: Redaction
    private let onMiss: (@Sendable (String) -> Void)?
    private let state = LockedState(State())

    init(
        archive: HARArchive, matchingBodies: Bool, redaction: Redaction,
        onMiss: (@Sendable (String) -> Void)?
    ) throws {
        self.matchesBodies = matchingBodies
        self.redaction = redaction
        self.onMiss = onMiss
        self.entries = try archive.log.entries.enumerated().map { index, entry in
            try Self.entry(entry, index: index)
        }
    }

    var entryCount: Int { entries.count }

    var missedRequests: [URLRequest] {
        state.withLock { $0.missed }
    }

    /// The recorded answer to `request`, or a loud miss.
    func answer(for request: URLRequest) -> StubbedResponse {
        let method = (request.httpMethod ?? "GET").uppercased()
        let url = request.url.map(redaction.redacted)?.absoluteString ?? ""
        // Compared as it was recorded: with its secret fields masked.
        let sent = request.httpBody ?? Data()
        let body = redaction.writableBody(sent, contentType: request.value(forHTTPHeaderField: "Content-Type"))
        let group = entries.indices.filter { index in
            entries[index].method == method && entries[index].url == url
                && (!matchesBodies || Self.sameBody(entries[index].body, body))
        }
        guard let first = group.first else { return miss(request, method: method, url: url) }
        let position = state.withLock { state in
            defer { state.served[first, default: 0] += 1 }
            return min(state.served[first, default: 0], group.count - 1)
        }
        return entries[group[position]].answer
    }

    private func miss(_ request: URLRequest, method: String, url: String) -> StubbedResponse {
        state.withLock { $0.missed.append(request) }
        let wanted = "\(method) \(url)"
        let closest = entries.map(\.name)
            .reduce(into: [String]()) { names, name in if !names.contains(name) { names.append(name) } }
            .map { (name: $0, distance: Self.editDistance($0, wanted)) }
            .sorted { $0.distance < $1.distance }
            .prefix(3)
        let bodyNote = matchesBodies ? " with a body of \(request.httpBody?.count ?? 0) bytes" : ""
        let list = closest.isEmpty ? "\n  (the archive is empty)" : closest.map { "\n  - \($0.name)" }.joined()
        let message =
            "HARReplaySession: no recorded entry for \(LoudMiss.describe(method: method, url: request.url))\(bodyNote)."
            + "\nClosest recorded entries:" + list
        return LoudMiss.report(message, to: onMiss)
    }

    private static func sameBody(_ recorded: Data, _ sent: Data) -> Bool {
        if recorded == sent { return true }
        guard let recordedJSON = JSONValue(parsing: recorded) else { return false }
        return JSONValue(parsing: sent) == recordedJSON
    }

    private static func entry(_ entry: HARArchive.Entry, index: Int) throws -> Entry {
        let request = entry.request
        guard let body = HARBody.data(of: request.postData?.text, encoding: request.postData?.encoding) else {
            throw HARReadError(
                description: "entry \(index) (\(request.method) \(request.url)): the request body is invalid base64")
        }
        return Entry(
            method: request.method.uppercased(), url: request.url, body: body,
            answer: try answer(entry.response, urlErrorCode: entry.urlErrorCode, index: index, request: request))
    }

    private static func answer(
        _ response: HARArchive.Response, urlErrorCode: Int?, index: Int, request: HARArchive.Request
    ) throws -> StubbedResponse {
        guard response.status > 0 else {
            return .error(urlErrorCode.map(Self.urlErrorCode) ?? .unknown)
        }
        let content = response.content
        guard let body = HARBody.data(of: content?.text, encoding: content?.encoding) else {
            throw HARReadError(
                description: "entry \(index) (\(request.method) \(request.url)): the response body is invalid base64")
        }
        let headers = HTTPHeaders((response.headers ?? []).map { ($0.name, $0.value) })
        return .status(response.status, headers: headers, body: body)
    }

    private static func urlErrorCode(_ rawValue: Int) -> URLError.Code {
        #if canImport(FoundationNetworking)
            // swift-corelibs-foundation's initializer is failable; Apple's is not.
            URLError.Code(rawValue: rawValue) ?? .unknown
        #else
            URLError.Code(rawValue: rawValue)
        #endif
    }

    /// The Levenshtein distance between two request names, to list the closest entries.
    private static func editDistance(_ lhs: String, _ rhs: String) -> Int {
        let a = Array(lhs.utf8.prefix(300))
        let b = Array(rhs.utf8.prefix(300))
        var previous = Array(0...b.count)
        for (i, byteA) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, byteB) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (byteA == byteB ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
