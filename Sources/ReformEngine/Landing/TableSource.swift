import ReformSDK

/// Records from a table (`--input MANAGER=sqlite:PATH#TABLE`): one per row, in the table's order.
///
/// A row's number stands for its line in dead-letter entries (`sqlite:out.db#listings:12`).
final class TableSource: RecordSource {
    let inputName: String
    private let manager: String
    private let reader: TableReader

    init(_ address: TableAddress, manager: String) throws(SourceError) {
        self.manager = manager
        inputName = address.description
        do { reader = try TableReader(address) } catch {
            throw SourceError(manager: manager, message: error.description)
        }
    }

    func next() throws(SourceError) -> Landed? {
        do {
            guard let record = try reader.next() else { return nil }
            return .record(record, line: reader.count, page: 0)
        } catch {
            throw SourceError(manager: manager, message: error.description)
        }
    }
}
