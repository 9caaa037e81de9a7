import CZlib
import ReformSystem

extension ResponseFile {
    /// The file as an input read from its start, on a descriptor of its own: through zlib when
    /// it is a gzip fixture. `label` names it in errors.
    func input(label: String, chunkSize: Int) throws(InputError) -> InputFile {
        let descriptor: Int32
        do { descriptor = try reopened() } catch { throw InputError(path: label, message: error.description) }
        guard isGzip else {
            return InputFile(descriptor: descriptor, path: label, ownsDescriptor: true, chunkSize: chunkSize)
        }
        guard let stream = gzdopen(descriptor, "rb") else {
            close(descriptor)
            throw InputError(path: label, message: "cannot start reading \(path) as gzip")
        }
        gzbuffer(stream, 1 << 17)
        return InputFile(descriptor: descriptor, path: label, ownsDescriptor: true, chunkSize: chunkSize, gzip: stream)
    }
}
