import Foundation
import NetworkModuleCore
import NetworkModuleTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The test kit with body streams: matched, recorded and described without being read.
@Suite("Test kit: streamed bodies")
struct StreamedBodyKitTests {
    func streamRequest(length: Int? = 5) -> URLRequest {
        var request = makeURLRequest("/uploads", method: "PUT", headers: ["Content-Type": "text/plain"])
        request.httpBodyStream = InputStream(data: Data("hello".utf8))
        if let length { request.setValue(String(length), forHTTPHeaderField: "Content-Length") }
        return request
    }

    @Test("when a request has a body stream, should match streamedBody and no matcher that reads a body")
    func matchers() {
        let request = streamRequest()

        #expect(RequestMatcher.streamedBody().matches(request))
        #expect(RequestMatcher.streamedBody(length: 5).matches(request))
        #expect(!RequestMatcher.streamedBody(length: 6).matches(request))
        #expect(!RequestMatcher.body(Data()).matches(request))
        #expect(!RequestMatcher.body("anything", where: { _ in true }).matches(request))
        #expect(!RequestMatcher.streamedBody().matches(makeURLRequest("/uploads", body: Data("x".utf8))))
    }

    @Test("when recording a request with a body stream, should note it as skipped with its length, unread")
    func harSkipsStream() throws {
        let backend = FakeNetworkSession()
        backend.stub(.any, with: .status(204))
        let recorder = HARRecordingSession(wrapping: backend)
        let request = streamRequest()

        recorder.send(request)

        let archive = try #require(try JSONSerialization.jsonObject(with: recorder.harData()) as? [String: Any])
        let entries = try #require((archive["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let recorded = try #require(entries.first?["request"] as? [String: Any])
        let postData = try #require(recorded["postData"] as? [String: Any])
        #expect(recorded["bodySize"] as? Int == 5)
        #expect(postData["mimeType"] as? String == "text/plain")
        #expect(postData["text"] == nil)
        #expect((postData["comment"] as? String)?.contains("body stream (5 bytes) not recorded") == true)
        #expect(request.httpBodyStream?.streamStatus == .notOpen)
    }
}
