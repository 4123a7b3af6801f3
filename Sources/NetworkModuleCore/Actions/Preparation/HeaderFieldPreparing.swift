import Foundation

/// An action whose preparation only sets header fields, and can usually do so at once (the
/// built-in header and authentication actions): the pipeline lets consecutive ones edit one
/// ``HeaderFieldTable`` and writes it into the request once. Their `prepare` does the same
/// through a table of its own, so calling it directly gives the same request.
protocol HeaderFieldPreparing: NetworkModuleAction {
    /// Does to `headers` (with earlier actions' changes) what `prepare` would do to the fields of
    /// the request for `url`, and returns `true`; or changes nothing and returns `false` when the
    /// preparation cannot finish at once (an authentication action waiting for its token), and
    /// the pipeline calls `prepare`. Throws the ``NetworkError`` that fails the request.
    func prepareHeaderFields(
        _ headers: inout HeaderFieldTable, url: URL?, context: ActionContext
    ) throws(NetworkError) -> Bool
}
