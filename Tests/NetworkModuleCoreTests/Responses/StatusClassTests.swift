import Foundation
import Testing

@testable import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Status classes of responses and errors")
struct StatusClassTests {
    func response(_ status: Int) -> NetworkResponse {
        let url = URL(string: "https://api.example.com")!
        return NetworkResponse(
            data: Data(),
            httpResponse: HTTPURLResponse(url: url, statusCode: status, httpVersion: nil, headerFields: nil)!,
            request: URLRequest(url: url))
    }

    @Test(
        "when a status is classified, should fall in exactly its class, on responses and errors alike",
        arguments: [
            (199, ""), (200, "success"), (204, "success"), (299, "success"), (300, "redirect"), (304, "redirect"),
            (399, "redirect"), (400, "client"), (404, "client"), (499, "client"), (500, "server"), (599, "server"),
            (600, ""),
        ])
    func classes(status: Int, expected: String) {
        let response = response(status)
        let error = NetworkError.unacceptableStatusCode(HTTPErrorResponse(statusCode: status))

        let classes = [
            [response.isSuccess, response.isRedirect, response.isClientError, response.isServerError],
            [StatusClass.isSuccess(status), error.isRedirect, error.isClientError, error.isServerError],
        ]

        let names = ["success", "redirect", "client", "server"]
        for flags in classes {
            #expect(zip(names, flags).filter(\.1).map(\.0) == (expected.isEmpty ? [] : [expected]))
        }
    }

    @Test("when an error has no status, should be in no status class")
    func errorsWithoutStatus() {
        let errors: [NetworkError] = [.cancelled, .timedOut, .noResponseData]

        for error in errors {
            #expect(!error.isRedirect && !error.isClientError && !error.isServerError)
        }
    }
}
