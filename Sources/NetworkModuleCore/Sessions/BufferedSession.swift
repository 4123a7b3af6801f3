import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A session that is not a ``TransferringSession``, as one: its data task, with the transfer
/// applied to the body once it has arrived whole (``TransferOptions/appliedToWholeBody(of:completionHandler:)``); for a redirect policy
/// other than ``RedirectPolicy/follow``, a task that sends nothing and fails with
/// `URLError.unsupportedURL`, blaming ``name`` (a data task follows redirects, and the framework
/// sees none of them), so that a policy is never silently ignored.
package struct BufferedSession: TransferringSession {
    let base: any NetworkSession
    /// How the failure of a policy it cannot apply names the session.
    let name: String

    package func transferTask(
        with request: URLRequest, transfer: TransferOptions,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkSessionTask {
        guard transfer.redirectPolicy.isFollow else {
            let error = RedirectPolicy.unsupportedError(by: name, url: request.url)
            return UnsentTask(answer: .failure(error), completionHandler: completionHandler)
        }
        return base.dataTask(
            with: request,
            completionHandler: transfer.appliedToWholeBody(of: request, completionHandler: completionHandler))
    }
}
