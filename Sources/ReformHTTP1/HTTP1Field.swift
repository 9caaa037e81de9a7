/// One header field of a request or response, as it is sent or arrived: the name in its own case.
package struct HTTP1Field: Sendable, Hashable {
    /// The field name.
    package var name: String
    /// The field value, without surrounding white space.
    package var value: String

    /// The field `name: value`.
    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
