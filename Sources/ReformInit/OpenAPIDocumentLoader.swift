package import OpenAPIKit
import OpenAPIKit30
import OpenAPIKitCompat
import ReformEngine
import ReformSDK
package import ReformYAML

/// Reads an OpenAPI document (3.0, 3.1 or 3.2; JSON or YAML) into OpenAPIKit's 3.2 model: a 3.0
/// document is decoded as 3.0 and converted. Decoding goes through ``YAMLNodeDecoder``, so every
/// problem names the file, line and column where it is, and paths keep the document's order.
package struct OpenAPIDocumentLoader: Sendable {
    /// A loader.
    package init() {}

    /// The document at `location`: a file, or an `http(s)://` URL asked with one GET.
    package func load(from location: String) async throws(InitError) -> LoadedOpenAPIDocument {
        guard location.hasPrefix("http://") || location.hasPrefix("https://") else {
            let bytes: [UInt8]
            do { bytes = try FilePaths.readAll(location) } catch {
                throw InitError("\(location): cannot read the OpenAPI document: \(error)")
            }
            return try load(bytes, file: location)
        }
        let response: HTTPResponse
        do {
            response = try await LiveTransport().send(Self.request(for: location), for: ManagerRef(index: 0, name: "init"))
        } catch {
            throw InitError("\(location): cannot fetch the OpenAPI document: \(error.message)")
        }
        guard (200..<300).contains(response.status) else {
            throw InitError("\(location): the server answered \(response.status)\(response.excerpt().map { ": \($0)" } ?? "")")
        }
        if let body = response.body {
            // JSON, parsed by the transport: problems are named by their path in the document.
            return try document(from: YAMLNode(body, location: SourceLocation(line: 0, column: 0)), file: location)
        }
        if let problem = response.bodyProblem { throw InitError("\(location): the document is not valid JSON: \(problem)") }
        return try load(Array((response.bodyText ?? "").utf8), file: location)
    }

    /// A GET of `url`, split as a next-page link is (origin, path, decoded query).
    private static func request(for url: String) -> HTTPRequest {
        var request = PageLoader.request(fromURL: url, method: "GET")
        request.headers = [QueryItem(name: "Accept", value: "application/json, application/yaml;q=0.9, */*;q=0.5")]
        request.timeout = 60
        return request
    }

    /// The document in `bytes`, read from `file` (a path or URL, for messages).
    package func load(_ bytes: [UInt8], file: String) throws(InitError) -> LoadedOpenAPIDocument {
        let root: YAMLNode
        do {
            // A large document (GitHub's is 11 MB and 600,000 nodes) is within the loader's limits;
            // only its size limit is raised, to what `--max-body-bytes` allows a response.
            let documents = try YAMLLoader(limits: YAMLLimits(maxInputBytes: 256 << 20, maxNodes: 50_000_000)).load(bytes, file: file)
            guard let first = documents.first else { throw InitError("\(file): the document is empty; expected an OpenAPI document") }
            root = first
        } catch let error as YAMLError {
            throw InitError("\(error)")
        } catch let error as InitError {
            throw error
        } catch {
            throw InitError("\(file): \(error)")
        }
        return try document(from: root, file: file)
    }

    /// The document `root` holds; a problem is located at its node (a node at line 0 is named by
    /// its path only).
    private func document(from root: YAMLNode, file: String) throws(InitError) -> LoadedOpenAPIDocument {
        let version = try Self.version(of: root, file: file)
        do {
            if version.hasPrefix("3.0") {
                let old = try YAMLNodeDecoder().decode(OpenAPIKit30.OpenAPI.Document.self, from: root)
                return LoadedOpenAPIDocument(document: old.convert(to: .v3_1_1), version: version)
            }
            return LoadedOpenAPIDocument(
                document: try YAMLNodeDecoder().decode(OpenAPIKit.OpenAPI.Document.self, from: root), version: version)
        } catch {
            let problem = OpenAPIKit.OpenAPI.Error(from: error)
            let location = root.location(of: problem.codingPath)
            let at = problem.codingPath.isEmpty ? "" : " (at \(problem.codingPathString))"
            let place = location.line == 0 ? file : "\(file):\(location)"
            throw InitError("\(place): \(Self.sentence(problem.localizedDescription))\(at)")
        }
    }

    /// The `openapi` version the document declares; a Swagger 2.0 document or a file that is not an
    /// OpenAPI document is refused with what to do.
    private static func version(of root: YAMLNode, file: String) throws(InitError) -> String {
        guard case .mapping(let pairs) = root.content else {
            throw InitError("\(file):\(root.location): expected an OpenAPI document (a mapping with 'openapi', 'info' and 'paths')")
        }
        func text(_ key: String) -> (String, SourceLocation)? {
            guard let pair = pairs.first(where: { if case .scalar(let s) = $0.key.content { s.text == key } else { false } }),
                case .scalar(let scalar) = pair.value.content
            else { return nil }
            return (scalar.text, pair.value.location)
        }
        if let (swagger, location) = text("swagger") {
            throw InitError(
                "\(file):\(location): this is a Swagger \(swagger) document; reform init reads OpenAPI 3 "
                    + "(convert it first, for example with swagger2openapi or editor.swagger.io's 'Convert to OpenAPI 3')")
        }
        guard let (version, location) = text("openapi") else {
            throw InitError("\(file):\(root.location): expected an OpenAPI document: it has no 'openapi: 3.x' version")
        }
        guard version.hasPrefix("3.0") || version.hasPrefix("3.1") || version.hasPrefix("3.2") else {
            throw InitError("\(file):\(location): OpenAPI \(version) is not one reform init reads (3.0, 3.1 and 3.2 are)")
        }
        return version
    }

    /// OpenAPIKit's message as one sentence without its trailing period.
    private static func sentence(_ text: String) -> String {
        var text = Substring(text)
        while let last = text.last, last.isWhitespace || last == "." { text.removeLast() }
        return String(text.drop(while: \.isWhitespace))
    }
}

/// A document as read: OpenAPIKit's model, and the version the document declared (a 3.0 document
/// is converted to the 3.1 model).
package struct LoadedOpenAPIDocument: Sendable {
    /// The document.
    package var document: OpenAPIKit.OpenAPI.Document
    /// `3.0.3`, `3.1.0`…, as written.
    package var version: String
}

/// Why `reform init` could not write a pipeline: the whole message, located where it can be.
package struct InitError: Error, CustomStringConvertible, Sendable {
    /// The message.
    package let description: String

    /// An error saying `description`.
    package init(_ description: String) { self.description = description }
}
