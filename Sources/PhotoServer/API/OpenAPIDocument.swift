/// The OpenAPI 3.1 document of every operation `serve` answers (``Route/table``), as `GET /api/openapi.json` sends it.
///
/// Written by hand in `openapi.json` beside this file and compiled into the binary; `docs/openapi.json` is a copy that
/// the tests keep identical. The tests also walk ``Route/table`` against it (a route missing from the document, or an
/// answer whose shape it does not allow, fails), and Schemathesis drives a live `serve` from it in CI.
public enum OpenAPIDocument {
    /// The document's bytes (JSON).
    public static let bytes: [UInt8] = PackageResources.openapi_json
}
