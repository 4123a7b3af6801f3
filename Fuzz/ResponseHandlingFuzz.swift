import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fuzz target (b): response interpretation and decoding. The input becomes what a session
/// delivers (a status, headers and a body, a transport error, or another domain's error) and
/// goes through the module's interpretation, decoding (`decode`, `decodeIfPresent`, `text()`,
/// error bodies), the parsers of server headers (`Retry-After`, `Cache-Control`,
/// `Cache-Status`, `Content-Range`, `Content-Length`, a stored response's `Age`, `Date` and
/// `Expires`) and of certificates (the public key a pin hashes), with
/// acceptable status codes of any `Int` values and ranges. Nothing may crash, errors keep the
/// session's message, and each
/// outcome must be the one the input deserves.
///
/// Built by `scripts/fuzz.sh` together with the NetworkModuleCore sources as one module, so
/// internal API is reachable.
@_cdecl("LLVMFuzzerTestOneInput")
public func responseHandlingFuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    var input = FuzzInput(UnsafeRawBufferPointer(start: start, count: count))
    let selector = input.byte()
    if selector & 0x80 != 0 {
        let code = Int(Int16(bitPattern: input.uint16()))
        let message = input.string()
        if selector & 0x40 != 0 {
            interpretSessionError(domain: input.string(), code: code, message: message)
        } else {
            interpretTransportError(code: code, message: message)
        }
        return 0
    }
    let status = Int(input.uint16() % 1000)
    var headerFields: [String: String] = [:]
    for _ in 0..<Int(input.byte() % 6) {
        headerFields[input.string()] = input.string()
    }
    let acceptable: AcceptableStatusCodes =
        switch (selector & 0x01 != 0, selector & 0x04 != 0) {
        case (false, false): .successful
        case (true, false): AcceptableStatusCodes(100..<600)
        default: input.statusCodes().check()
        }
    let body = Data(input.rest())

    // The header parsers, on the headers they read (a DateFormatter per Retry-After date is
    // slow: parsing every value would cut the fuzzer's speed tenfold).
    let headers = HTTPHeaders(headerFields.map { ($0.key, $0.value) })
    _ = CacheControl(cacheControl: headers["Cache-Control"], pragma: headers["Pragma"])
    if let retryAfter = headers["Retry-After"],
        let delay = RetryAfter.delay(from: retryAfter, now: Date(timeIntervalSince1970: 1_700_000_000))
    {
        fuzzCheck(delay.isFinite && delay >= 0, "Retry-After \(retryAfter.debugDescription) gave the delay \(delay)")
    }

    // What a server's TLS chain and a cache nearer it send: the body read as a certificate
    // (public-key pinning reads the key out of every certificate of the chain), and the
    // Cache-Status header.
    if let keyInfo = SubjectPublicKeyInfo.der(ofCertificate: body) {
        fuzzCheck(
            keyInfo.first == 0x30 && keyInfo.count <= body.count,
            "the key info read from \(body.count) bytes is \(keyInfo.count) bytes, starting \(keyInfo.first ?? 0)")
        fuzzCheck(SHA256.hash(keyInfo).count == 32, "a SHA-256 digest is not 32 bytes")
    }
    _ = CacheStatus.isStale(headers["Cache-Status"])

    let url = URL(string: "https://api.example.com/v2/fuzz")!
    guard
        let response = HTTPURLResponse(
            url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headerFields)
    else { return 0 }
    checkServerNumbers(response, body: body, url: url)
    let result = ResponseInterpreter.interpret(
        data: selector & 0x02 == 0 ? body : nil, response: response, error: nil,
        request: URLRequest(url: url), acceptableStatusCodes: acceptable, duration: 0)
    switch result {
    case .success(let networkResponse):
        fuzzCheck(acceptable.contains(status), "status \(status) was accepted")
        decodeEveryWay(networkResponse)
    case .failure(let error):
        fuzzCheck(!acceptable.contains(status), "acceptable status \(status) failed with \(error)")
        fuzzCheck(error.statusCode == status, "status \(status) became \(error)")
        _ = error.description
        _ = error.isRetryable
        _ = try? error.httpErrorResponse?.decodeBody(as: [String: FuzzJSON].self)
        _ = error.httpErrorResponse?.bodyText
    }
    return 0
}

/// The computations on numbers a server sends (issue 38, item 5: a `Content-Range` whose
/// length overflowed stopped a download): a `206`'s range checked against `bytes=0-`, the
/// declared body length, and a stored response's age and freshness as the cache works them out.
private func checkServerNumbers(_ response: HTTPURLResponse, body: Data, url: URL) {
    if let range = ContentRange(of: response) {
        fuzzCheck(
            range.length > 0 && range.end - range.start == range.length - 1,
            "Content-Range \(response.value(forHTTPHeaderField: "Content-Range") ?? "") has length \(range.length)")
    }
    var ranged = URLRequest(url: url)
    ranged.setValue("bytes=0-", forHTTPHeaderField: "Range")
    _ = try? ContentRange.keptBytes(of: response, to: ranged, resumingAt: 0)
    if let declared = ResponseFraming.declaredBodyLength(of: response, method: "GET") {
        fuzzCheck(declared >= 0, "a declared body length of \(declared)")
    }
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    guard
        let stored = CachedResponse(
            data: body, response: response, request: URLRequest(url: url), sentAt: now, receivedAt: now)
    else { return }
    for later in [now, now.addingTimeInterval(4e9), .distantFuture] {
        _ = stored.isUsable(at: later, for: .none)
        _ = stored.isUsableWhileRevalidating(at: later, for: .none)
        _ = stored.isUsableOnError(at: later, for: .none)
        _ = stored.served(at: later, as: .hit)
    }
}

/// Any JSON value, to decode arbitrary bodies all the way down.
private indirect enum FuzzJSON: Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([FuzzJSON])
    case object([String: FuzzJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([FuzzJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: FuzzJSON].self))
        }
    }
}

private struct FuzzUser: Decodable {
    let id: Int
    let name: String
    let tags: [String]?
}

private func decodeEveryWay(_ response: NetworkResponse) {
    let empty = response.data.isEmpty
    expectDecodingOutcome(empty: empty) { () throws(NetworkError) in _ = try response.decode(FuzzJSON.self) }
    expectDecodingOutcome(empty: empty) { () throws(NetworkError) in _ = try response.decode(FuzzUser.self) }
    do throws(NetworkError) {
        let value = try response.decodeIfPresent(FuzzUser.self)
        fuzzCheck(!empty || value == nil, "decodeIfPresent of an empty body returned a value")
    } catch {
        fuzzCheck(!empty, "decodeIfPresent of an empty body threw \(error)")
        checkDecodingFailure(error)
    }
    do throws(NetworkError) {
        let text = try response.text()
        fuzzCheck(Data(text.utf8) == response.data, "text() changed the bytes")
    } catch {
        fuzzCheck(String(validatingUTF8: response.data) == nil, "text() rejected valid UTF-8")
        checkDecodingFailure(error)
    }
    _ = response.headers["Content-Type"]
}

/// `decode` of an empty body is `.noResponseData`; of anything else, a value or `.decodingFailed`.
private func expectDecodingOutcome(empty: Bool, _ decode: () throws(NetworkError) -> Void) {
    do throws(NetworkError) {
        try decode()
        fuzzCheck(!empty, "an empty body decoded")
    } catch {
        if empty {
            fuzzCheck(error == .noResponseData, "an empty body failed with \(error)")
        } else {
            checkDecodingFailure(error)
        }
    }
}

private func checkDecodingFailure(_ error: NetworkError) {
    guard case .decodingFailed(let failure) = error else {
        fuzzCheck(false, "decoding failed with \(error), not .decodingFailed")
        return
    }
    _ = failure.description
}

private func interpretTransportError(code: Int, message: String) {
    let error = NSError(domain: NSURLErrorDomain, code: code, userInfo: [NSLocalizedDescriptionKey: message])
    let request = URLRequest(url: URL(string: "https://example.com")!)
    let normalized = LinuxURLSessionQuirks.normalized(error, sentTo: request.url)
    let result = ResponseInterpreter.interpret(
        data: nil, response: nil, error: normalized, request: request,
        acceptableStatusCodes: .successful, duration: 0)
    guard case .failure(let networkError) = result else {
        fuzzCheck(false, "a transport error \(code) succeeded")
        return
    }
    // The session's message reaches the error and its description (libcurl's TLS and
    // truncation messages too: normalizing changes the code, not the message).
    if let failure = networkError.transportFailure, !message.isEmpty {
        fuzzCheck(failure.message == message, "the message \(message.debugDescription) became \(failure)")
        // Masked on its own, as every text written is: the description's words around it
        // change nothing.
        let detail = " The session said: \"\(Redaction.default.redactedText(message))\""
        fuzzCheck(
            networkError.description.utf8.reversed().starts(with: detail.utf8.reversed()),
            "\(networkError) does not end with \(detail.debugDescription)")
    }
    _ = networkError.description
}

/// An error from another domain (a custom session's): it is kept as it is, its domain, code and message with it.
private func interpretSessionError(domain: String, code: Int, message: String) {
    let error = NSError(domain: domain, code: code, userInfo: [NSLocalizedDescriptionKey: message])
    let result = ResponseInterpreter.interpret(
        data: nil, response: nil, error: error, request: URLRequest(url: URL(string: "https://example.com")!),
        acceptableStatusCodes: .successful, duration: 0)
    guard domain != NSURLErrorDomain else { return }
    guard case .failure(.underlying(let underlying)) = result else {
        fuzzCheck(false, "the \(domain) error \(code) became \(result)")
        return
    }
    fuzzCheck(
        (underlying as NSError) === error,
        "the \(domain) error \(code) \(message.debugDescription) became \(underlying)")
    // The domain, code and message masked as one text on their own: the description's words
    // around them change nothing.
    let description = NetworkError.underlying(underlying).description
    fuzzCheck(
        containsBytes(description, "(\(Redaction.default.redactedText("\(domain) error \(code)): \(message)"))"),
        "the description of the \(domain.debugDescription) error \(code) lost what the session said: \(description)")
}

extension String {
    fileprivate init?(validatingUTF8 data: Data) {
        guard let text = String(data: data, encoding: .utf8) else { return nil }
        self = text
    }
}

/// Whether `text` holds `part`, byte for byte: `String.contains` compares characters, and a
/// message that starts with a combining mark joins the space before it into one.
private func containsBytes(_ text: String, _ part: String) -> Bool {
    Array(text.utf8).firstRange(of: Array(part.utf8)) != nil
}
