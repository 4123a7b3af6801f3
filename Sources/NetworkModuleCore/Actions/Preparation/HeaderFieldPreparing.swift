import Foundation

/// An action whose preparation only sets header fields, and can usually do so at once: the
/// built-in header and authentication actions.
///
/// The pipeline lets consecutive such actions edit one ``HeaderFieldTable`` and writes it into
/// the request once, instead of each action copying and rewriting the whole request. Their
/// `prepare` does the same through a table of its own, so calling it directly gives the same
/// request.
protocol HeaderFieldPreparing: NetworkModuleAction {
    /// Does to `headers` what `prepare` would do to the request's fields, and returns `true`;
    /// or changes nothing and returns `false` when the preparation cannot finish at once (an
    /// authentication action still waiting for its token), and the pipeline calls `prepare`.
    ///
    /// - Parameters:
    ///   - headers: the fields of the request being prepared, with earlier actions' changes.
    ///   - url: the URL of the request being prepared.
    ///   - context: the attempt's context, as `prepare` would get it.
    /// - Throws: the ``NetworkError`` that fails the request, such as an invalid header value.
    func prepareHeaderFields(
        _ headers: inout HeaderFieldTable, url: URL?, context: ActionContext
    ) throws(NetworkError) -> Bool
}
