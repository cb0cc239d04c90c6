import Foundation
import PackagePlugin

/// Writes the commit the package is built from into the target (`BuildCommit.swift`: `PhotodropVersion.commit`),
/// before every build, so that `photodrop --version` names it. Outside a git checkout (a source tarball), or without
/// git, the commit is unknown and the version stands alone. The file is rewritten only when its text changes, so an
/// unchanged commit compiles nothing again.
@main
struct BuildStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "stamp")
        let file = output.appending(path: "BuildCommit.swift").path
        let package = context.package.directoryURL.path
        // The commit (12 hex digits) with "-modified" when tracked files differ from it; nothing when unknown.
        let script = """
            set -u
            dir="$1"; out="$2"
            commit=$(git -C "$dir" rev-parse --short=12 HEAD 2>/dev/null || true)
            if [ -n "$commit" ] && ! git -C "$dir" diff --quiet HEAD -- 2>/dev/null; then commit="$commit-modified"; fi
            if [ -n "$commit" ]; then value="\\"$commit\\""; else value="nil"; fi
            text="// Written by the BuildStamp plugin before each build: the commit this build is made from.
            extension PhotodropVersion {
                public static let commit: String? = $value
            }"
            mkdir -p "$(dirname "$out")"
            if [ ! -f "$out" ] || [ "$(cat "$out")" != "$text" ]; then printf '%s\\n' "$text" > "$out"; fi
            """
        return [
            .prebuildCommand(
                displayName: "Stamping the build with its commit",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "build-stamp", package, file],
                outputFilesDirectory: output)
        ]
    }
}
