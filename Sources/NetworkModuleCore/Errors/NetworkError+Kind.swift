import Foundation

extension NetworkError {
    /// The error's kind, as a short identifier that never holds a secret or a value: the case's
    /// name (`"timedOut"`, `"cancelled"`, `"decodingFailed"`…). What a span's `error.type` says
    /// when no HTTP status does.
    var kindName: String {
        switch self {
        case .invalidRequest: "invalidRequest"
        case .unauthorized: "unauthorized"
        case .forbidden: "forbidden"
        case .notFound: "notFound"
        case .clientError: "clientError"
        case .serverError: "serverError"
        case .unacceptableStatusCode: "unacceptableStatusCode"
        case .notConnectedToInternet: "notConnectedToInternet"
        case .timedOut: "timedOut"
        case .cannotFindHost: "cannotFindHost"
        case .cannotConnectToHost: "cannotConnectToHost"
        case .networkConnectionLost: "networkConnectionLost"
        case .secureConnectionFailed: "secureConnectionFailed"
        case .transportError: "transportError"
        case .underlying: "underlying"
        case .cancelled: "cancelled"
        case .responseTooLarge: "responseTooLarge"
        case .invalidResponse: "invalidResponse"
        case .noResponseData: "noResponseData"
        case .decodingFailed: "decodingFailed"
        case .actionFailed: "actionFailed"
        }
    }
}
