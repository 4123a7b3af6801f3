import Foundation
import NetworkModuleCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Secrets inside values that are not secrets themselves, and in free text: the forms the
/// adversarial review of issue 38 found written in clear (quoted or spaced values, a Swift
/// error's own fields, URLs nested in query values, bracketed field names, JSON inside a form
/// field or a JSON string, newline-delimited JSON, `Referer`).
@Suite("Redaction: secrets inside other values and in free text")
struct RedactionNestedSecretsTests: SecretMaskingChecks {
    @Test("when free text holds a secret name=value whose value is quoted, should mask the value")
    func quotedValueInFreeText() {
        expectNoSecret(Redaction.default.redactedText("login failed: password=\"s3cr3t\""))
        expectNoSecret(Redaction.default.redactedText("login failed: access_token='s3cr3t'"))
    }

    @Test("when free text holds a secret name = value with spaces around =, should mask the value")
    func spacedEqualsInFreeText() {
        // An NSDictionary / property-list dump: `{ password = s3cr3t; }`.
        expectNoSecret(Redaction.default.redactedText("UserInfo={ password = s3cr3t; }"))
    }

    private struct RefreshFailed: Error {
        let refreshToken: String
    }

    @Test("when an action fails with a Swift error whose field is a secret, its description should mask it")
    func swiftErrorFieldInDescription() {
        let error = NetworkError.actionFailed(action: "Auth", error: RefreshFailed(refreshToken: secret))
        expectNoSecret(error.description)
        expectNoSecret(Redaction.default.loggable(error))
        expectNoSecret(Redaction.default.loggable(NetworkError.underlying(RefreshFailed(refreshToken: secret))))
    }

    @Test(
        "when a query value is itself a URL carrying a token (a return or next URL), should mask the token",
        arguments: [
            "https://a.example/login?next=https://b.example/cb?access_token=s3cr3t",
            "https://a.example/login?next=https%3A%2F%2Fb.example%2Fcb%3Faccess_token%3Ds3cr3t",
        ])
    func nestedURLInQueryValue(text: String) throws {
        let url = try #require(URL(string: text))
        expectNoSecret(Redaction.default.redacted(url).absoluteString)
        expectNoSecret(Redaction.default.value(text, forHeader: "Location"))
    }

    @Test("when two Location headers were joined into one value, the second one's token should be masked")
    func joinedLocationValues() {
        let value = "https://a.example/?x=1, https://b.example/?access_token=s3cr3t"
        expectNoSecret(Redaction.default.value(value, forHeader: "Location"))
    }

    @Test("when a path could not be built because of a quote or bracket inside a token, its description should mask it")
    func invalidPathWithBracket() {
        let error = NetworkError.invalidRequest(.invalidPath("/p?api_key=ab<s3cr3t"))
        expectNoSecret(error.description)
    }

    @Test("when a query uses bracketed names (user[password], a Rails or PHP form), should mask the value")
    func bracketedFieldNames() throws {
        let url = try #require(URL(string: "https://a.example/login?user%5Bpassword%5D=s3cr3t&user[token]=s3cr3t"))
        expectNoSecret(Redaction.default.redacted(url).absoluteString)
        let form = Data("user%5Bpassword%5D=s3cr3t&user[email]=a%40b".utf8)
        let masked = Redaction.default.writableBody(form, contentType: "application/x-www-form-urlencoded")
        expectNoSecret(String(decoding: masked, as: UTF8.self))
    }

    @Test("when a form field holds JSON with a secret, should mask it")
    func jsonInFormField() {
        let form = Data("payload=%7B%22password%22%3A%22s3cr3t%22%7D&x=1".utf8)
        let masked = Redaction.default.writableBody(form, contentType: "application/x-www-form-urlencoded")
        expectNoSecret(String(decoding: masked, as: UTF8.self).removingPercentEncoding ?? "")
    }

    @Test("when a JSON string holds JSON with a secret (a JSON-encoded payload), should mask it")
    func jsonInJSONString() {
        let body = Data(#"{"payload": "{\"access_token\":\"s3cr3t\"}"}"#.utf8)
        let masked = Redaction.default.writableBody(body, contentType: "application/json")
        expectNoSecret(String(decoding: masked, as: UTF8.self))
    }

    @Test("when a newline-delimited JSON body holds a secret, should mask or withhold it")
    func ndjsonBody() {
        let body = Data("{\"access_token\":\"s3cr3t\"}\n{\"n\":1}\n".utf8)
        for type in ["application/x-ndjson", nil] as [String?] {
            let masked = Redaction.default.writableBody(body, contentType: type)
            expectNoSecret(String(decoding: masked, as: UTF8.self))
        }
    }

    @Test("when a request's Referer carries a token in its query, should mask it")
    func refererHeader() {
        let value = Redaction.default.value("https://a.example/cb?access_token=s3cr3t", forHeader: "Referer")
        expectNoSecret(value)
    }

    @Test("when free text holds a secret header line, should mask the rest of the line, and the next line not")
    func headerLineInFreeText() {
        let text = Redaction.default.redactedText("-H Authorization: Bearer s3cr3t s3cr3t\nAccept: */*")
        #expect(text == "-H Authorization: REDACTED\nAccept: */*")
    }

    @Test("when a Swift value's description holds a secret field, wrapped in Optional or not, should mask it")
    func swiftDescriptionFields() {
        let text = Redaction.default.redactedText(#"Failed(token: Optional("s3cr3t"), password: s3cr3t, page: 2)"#)
        #expect(text == #"Failed(token: REDACTED, password: REDACTED, page: 2)"#)
    }

    @Test("when a secret's value is itself name=value text, should mask each value once and keep the text around")
    func repeatedNames() {
        let text = Redaction.default.redactedText("password=password=s3cr3t token = 's3cr3t' x=1")
        #expect(text == "password=REDACTED token = 'REDACTED' x=1")
    }

    @Test("when values hold no secret, should leave URLs, forms and JSON exactly as they were")
    func noSecretNoChange() throws {
        let url = try #require(URL(string: "https://a.example/login?next=https://b.example/cb?page=2&t=12:30"))
        #expect(Redaction.default.redacted(url) == url)
        let form = Data("next=https%3A%2F%2Fb.example%2F%3Fpage%3D2&x=a%40b".utf8)
        #expect(Redaction.default.maskedBody(form, contentType: "application/x-www-form-urlencoded") == .unchanged)
        let json = Data(#"{"query":"a=b","time":"12:30"}"#.utf8)
        #expect(Redaction.default.maskedBody(json, contentType: "application/json") == .unchanged)
        let text = Data("line one\nkey: value\n".utf8)
        #expect(Redaction.default.maskedBody(text, contentType: "text/plain") == .unchanged)
    }
}
