public import ReformSDK

/// Turns the image URL in one key into a CDN thumbnail URL of a given size and format.
///
/// `https://img.example.com/zufang/101.jpg` becomes `https://img.example.com/zufang/101_200x150.webp`
/// (style `suffix`) or `…/101.jpg?w=200&h=150&fm=webp` (style `query`, replacing those parameters
/// when present). A missing or null image stays as it is; a value that is not an http(s) URL
/// rejects the record.
public struct ThumbnailURL: Reformer, Sendable {
    /// How the size goes into the URL.
    public enum Style: String, Sendable, CaseIterable {
        /// `name_WxH.ext`.
        case suffix
        /// `?w=W&h=H&fm=FORMAT`.
        case query
    }

    /// The key holding the image URL.
    public let key: String
    /// The key the thumbnail URL goes into (the same key when nil).
    public let into: String?
    /// Width in pixels.
    public let width: Int
    /// Height in pixels; 0 keeps the aspect ratio.
    public let height: Int
    /// The image format to ask for, or nil to keep the original's.
    public let format: String?
    /// Suffix or query style.
    public let style: Style
    /// A host to serve thumbnails from instead of the image's own.
    public let host: String?

    /// A thumbnail rewriter with every setting given.
    public init(key: String, into: String?, width: Int, height: Int, format: String?, style: Style, host: String?) {
        self.key = key
        self.into = into
        self.width = width
        self.height = height
        self.format = format
        self.style = style
        self.host = host
    }

    /// Rewrites the image URL of one record.
    public func reform(_ record: Value, from manager: ManagerRef, into output: inout RecordBuffer) throws(RecordError) {
        guard case .object(var object) = record else {
            throw RecordError(code: "not-an-object", message: "ThumbnailURL reads key '\(key)' of an object, not of \(record.kindName)")
        }
        let target = into ?? key
        switch object[key] {
        case nil, .null?:
            if into != nil { object[target] = .null }
        case .string(let text)?:
            guard let url = ImageURL(text) else {
                throw RecordError(code: "not-a-url", message: "'\(key)' is not an http(s) image URL: '\(text.prefix(80))'")
            }
            object[target] = .string(thumbnail(of: url))
        case let other?:
            throw RecordError(code: "wrong-type", message: "'\(key)' must be an image URL string, not \(other.kindName)")
        }
        output.append(.object(object))
    }

    func thumbnail(of original: ImageURL) -> String {
        var url = original
        if let host { url.host = Substring(host) }
        switch style {
        case .suffix:
            url.addSuffix(height > 0 ? "\(width)x\(height)" : "\(width)w", format: format)
        case .query:
            var parameters = [("w", String(width))]
            if height > 0 { parameters.append(("h", String(height))) }
            if let format { parameters.append(("fm", format)) }
            url.setQuery(parameters)
        }
        return url.text
    }
}
