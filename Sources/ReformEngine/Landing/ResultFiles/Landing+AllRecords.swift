public import ReformSDK

extension Landing {
    /// Every record of the page: ``records``, or those of ``recordFile`` read into memory (a
    /// bad record throws, naming its line). A result file too large to hold is read with
    /// ``RecordFile/reader()``, a record at a time.
    public func allRecords() throws(SourceError) -> [Value] {
        guard let recordFile else { return records }
        let reader = try recordFile.reader()
        var all: [Value] = []
        while let record = try reader.next() {
            switch record {
            case .success(let value): all.append(value)
            case .failure(let error): throw SourceError(manager: manager.name, message: "\(recordFile.source): \(error.message)")
            }
        }
        return all
    }
}
