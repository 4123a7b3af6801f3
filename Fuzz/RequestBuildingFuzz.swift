import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fuzz target (a): request building. The input becomes a path, a method, query items,
/// headers, a body, a timeout (any `Double`) and acceptable status codes (any `Int` values and
/// ranges); `DefaultRequestBuilder` and `AcceptableStatusCodes` must never crash, and a request
/// it builds must say exactly what was asked: the query items decode back, a relative path
/// stays on the base URL's origin, the timeout is the one given, no header carries a control
/// character (header injection), and the status set accepts exactly the codes given.
///
/// Built by `scripts/fuzz.sh` together with the NetworkModuleCore sources as one module, so
/// internal API is reachable.
@_cdecl("LLVMFuzzerTestOneInput")
public func requestBuildingFuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    var input = FuzzInput(UnsafeRawBufferPointer(start: start, count: count))
    let request = FuzzRequest(from: &input)
    _ = request.statusCodes.check()
    let builder = DefaultRequestBuilder(
        baseURL: fuzzBaseURL, defaultHeaders: ["Accept": "application/json"])

    let urlRequest: URLRequest
    do throws(NetworkError) {
        urlRequest = try builder.build(request: request)
    } catch {
        guard case .invalidRequest(let reason) = error else {
            fuzzCheck(false, "a build failure must be .invalidRequest, got \(error)")
            return 0
        }
        if case .invalidTimeout(let timeout) = reason {
            fuzzCheck(
                !(timeout.isFinite && timeout > 0) && timeout.bitPattern == request.timeout?.bitPattern,
                "the timeout \(String(describing: request.timeout)) was rejected as \(timeout)")
        }
        _ = error.description
        return 0
    }
    if let timeout = request.timeout {
        fuzzCheck(timeout.isFinite && timeout > 0, "the timeout \(timeout) was accepted")
        fuzzCheck(urlRequest.timeoutInterval == timeout, "the timeout \(timeout) became \(urlRequest.timeoutInterval)")
    }
    check(urlRequest, builtFrom: request)
    return 0
}

private let fuzzBaseURL = URL(string: "https://api.example.com/v2")!

private struct FuzzRequest: NetworkRequest {
    var path: String
    var method: HTTPMethod
    var queryItems: [URLQueryItem]
    var headers: HTTPHeaders
    var body: RequestBody?
    var timeout: TimeInterval?
    var statusCodes: FuzzStatusCodes
    var acceptableStatusCodes: AcceptableStatusCodes { statusCodes.built }

    init(from input: inout FuzzInput) {
        let selector = input.byte()
        let methods: [HTTPMethod] = [.get, .post, .put, .patch, .delete, .head]
        method =
            Int(selector & 0x07) < methods.count ? methods[Int(selector & 0x07)] : HTTPMethod(rawValue: input.string())
        switch (selector & 0x08 != 0, selector & 0x10 != 0) {
        case (true, false): timeout = TimeInterval(Int(input.uint16()) - 1000) / 10
        case (true, true): timeout = input.timeInterval()
        default: timeout = nil
        }
        statusCodes = selector & 0x20 != 0 ? input.statusCodes() : FuzzStatusCodes(codes: [], ranges: [200..<300])
        path = input.string()
        queryItems = (0..<Int(input.byte() % 6)).map { _ in
            let name = input.string()
            return URLQueryItem(name: name, value: input.byte() & 1 == 0 ? input.string() : nil)
        }
        var headers = HTTPHeaders()
        for _ in 0..<Int(input.byte() % 5) {
            let name = input.string()
            headers[name] = input.string()
        }
        self.headers = headers
        switch input.byte() % 5 {
        case 0: body = nil
        case 1: body = .data(Data(input.chunk()), contentType: input.string())
        case 2: body = .json([input.string(), input.string()])
        case 3: body = .formURLEncoded([(name: input.string(), value: input.string())])
        default:
            var form = MultipartFormData(boundary: input.byte() & 1 == 0 ? nil : input.string())
            form.addField(name: input.string(), value: input.string())
            form.addFile(
                name: input.string(), filename: input.string(), contentType: input.string(), data: Data(input.chunk()))
            body = .multipart(form)
        }
    }
}

private func check(_ urlRequest: URLRequest, builtFrom request: FuzzRequest) {
    guard let url = urlRequest.url else {
        fuzzCheck(false, "a built request has no URL: \(request)")
        return
    }
    let text = url.absoluteString
    // Header injection: no control character other than tab in any header sent.
    for (name, value) in urlRequest.allHTTPHeaderFields ?? [:] {
        fuzzCheck(
            (name + value).utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) },
            "header \(name.debugDescription): \(value.debugDescription) holds a control character")
    }
    fuzzCheck(
        text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F },
        "the URL \(text.debugDescription) holds a raw space or control character")

    // A plain relative path: the origin is the base URL's, the query items decode back exactly.
    // By scalar, not Character: "?" followed by a combining mark is one Character, and the
    // builder (rightly) still reads the "?" as the start of the query. The fuzzer found it.
    let plainPath = !request.path.unicodeScalars.contains { $0 == ":" || $0 == "?" || $0 == "#" }
    guard plainPath else { return }
    let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
    fuzzCheck(
        components?.scheme == "https" && components?.host == "api.example.com" && components?.port == nil,
        "the relative path \(request.path.debugDescription) left the base URL's origin: \(text)")
    let items = request.queryItems
    // One item with an empty name and no value is the empty query `?`, which reads back as no items.
    guard !(items.count == 1 && items[0].name.isEmpty && items[0].value == nil) else { return }
    let decoded = decodedQueryItems(components?.percentEncodedQuery)
    fuzzCheck(decoded == items, "the query of \(text) decodes to \(String(describing: decoded)), not \(items)")
}

/// The query items of an encoded query, decoded byte for byte. (Not `URLComponents.queryItems`:
/// swift-corelibs-foundation drops a leading U+FEFF from a decoded value, which the fuzzer
/// found; the builder's encoding `%EF%BB%BF` is right.)
private func decodedQueryItems(_ query: String?) -> [URLQueryItem] {
    guard let query else { return [] }
    return query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
        guard let equals = pair.firstIndex(of: "=") else { return URLQueryItem(name: percentDecoded(pair), value: nil) }
        return URLQueryItem(
            name: percentDecoded(pair[..<equals]), value: percentDecoded(pair[pair.index(after: equals)...]))
    }
}

private func percentDecoded(_ text: Substring) -> String {
    var bytes: [UInt8] = []
    var index = text.utf8.startIndex
    let utf8 = text.utf8
    while index < utf8.endIndex {
        let byte = utf8[index]
        if byte == UInt8(ascii: "%"), let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex),
            let low = utf8.index(index, offsetBy: 2, limitedBy: utf8.endIndex), low < utf8.endIndex,
            let value = UInt8(String(decoding: [utf8[high], utf8[low]], as: UTF8.self), radix: 16)
        {
            bytes.append(value)
            index = utf8.index(after: low)
        } else {
            bytes.append(byte)
            index = utf8.index(after: index)
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}
