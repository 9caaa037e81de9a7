import ReformEngine
import ReformSDK

/// libFuzzer entry: load the bytes as a pipeline file; every outcome but a crash or hang is fine.
///
/// The folder does not exist, so fixtures and plugins are never found; `${NAME}` resolves against
/// one made-up variable.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipeline(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let loader = PipelineLoader(environment: ["TOKEN": "t"])
    _ = try? loader.load(bytes: bytes, file: "fuzz.yaml", folder: "/nonexistent-reform-fuzz")
    return 0
}
