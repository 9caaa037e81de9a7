import ArgumentParser
import ReformEngine
import ReformSDK
import ReformTooling

/// `reform schema`: the JSON Schema of pipeline files (or, with `--tests`, of test files) that
/// editors complete and check YAML with.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema (draft 2020-12) of pipeline files, or of test files with --tests.",
        discussion: """
            Editors with the YAML language server use it through a first line such as \
            '# yaml-language-server: $schema=../schema/pipeline.schema.json'. The schema is made from the \
            declarations the loader checks keys against, so it accepts what 'reform validate' accepts \
            (values are checked further by validate). --plugins adds the options of every plugin found.
            """)

    @Flag(help: "The schema of test files (NAME.test.yaml) instead of pipelines.")
    var tests = false

    @Flag(help: "Describe the options of the plugins found (as 'reform plugins' lists them).")
    var plugins = false

    @OptionGroup var paths: PluginPathOptions

    func validate() throws {
        if tests && plugins { throw ValidationError("--plugins describes pipelines' plugin options; leave it out with --tests") }
    }

    func run() {
        if tests {
            print(JSONSchemaDocument.text(TestFileSchema.file, title: "Reform pipeline tests"), terminator: "")
        } else if plugins {
            let schema = PluginOptionsSchema.pipelineSchema(with: PluginOptionsSchema.schemas(in: paths.searchPath))
            print(JSON.prettyString(schema))
        } else {
            print(JSONSchemaDocument.text(PipelineSchema.pipeline, title: "Reform pipeline"), terminator: "")
        }
    }
}
