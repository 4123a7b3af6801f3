/// A built-in action that never changes a request before it is sent: its `prepare` is the
/// protocol's default, which does nothing. The pipeline skips its preparation.
///
/// Only the framework's own actions conform: for any other action the default `prepare` calls
/// `performBeforeExecutingNetworkRequest(request:urlRequest:)`, which it may implement.
protocol PreparationFreeAction: NetworkModuleAction {}
