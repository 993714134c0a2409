package dev.orchestrate.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code orchestrate init}: scaffold a commented config, a small backlog and an example agent. */
@Command(name = "init", mixinStandardHelpOptions = true,
    description = {"Scaffold a project: config, backlog and an example agent.",
        "Writes orchestrate.yaml (every key, commented), backlog.yaml, agents/example-agent.sh and the "
            + ".orchestrate/ state directory into DIR. Refuses to overwrite any existing file."})
final class InitCommand implements Callable<Integer> {
  /** Template resource → file written, relative to DIR. */
  private static final List<String> FILES = List.of("orchestrate.yaml", "backlog.yaml", "agents/example-agent.sh");

  @ParentCommand
  OrchestrateCommand root;

  @Spec
  CommandSpec spec;

  @Parameters(index = "0", arity = "0..1", paramLabel = "DIR", defaultValue = ".",
      description = "Directory to scaffold (default: the current directory)")
  Path dir;

  @Override
  public Integer call() {
    Path base = root.workingDirectory().resolve(dir);
    List<String> existing = new ArrayList<>();
    for (String f : FILES) {
      if (Files.exists(base.resolve(f))) {
        existing.add(dir.resolve(f).toString());
      }
    }
    if (!existing.isEmpty()) {
      throw CliException.usage("init would overwrite " + String.join(", ", existing)
          + "; nothing was written (move them away or init another directory)");
    }
    PrintWriter out = spec.commandLine().getOut();
    try {
      for (String f : FILES) {
        Path target = base.resolve(f);
        Files.createDirectories(target.toAbsolutePath().getParent());
        try (InputStream in = InitCommand.class.getResourceAsStream("/init/" + f)) {
          if (in == null) {
            throw new IllegalStateException("template " + f + " is missing from the build");
          }
          Files.copy(in, target);
        }
        if (f.endsWith(".sh")) {
          makeExecutable(target);
        }
        out.println("wrote " + dir.resolve(f));
      }
      Path state = root.state != null ? root.state : dir.resolve(OrchestrateCommand.DEFAULT_STATE_DIR);
      Files.createDirectories(root.workingDirectory().resolve(state));
      out.println("created " + state + "/");
    } catch (IOException e) {
      throw new UncheckedIOException("init: " + e.getMessage(), e);
    }
    out.println();
    out.println("Next: edit backlog.yaml and agent.command in orchestrate.yaml, then run");
    // Run from here, that backlog finds its project (the state and config written above).
    out.println("  orchestrate run" + (dir.equals(Path.of(".")) ? "" : " " + dir.resolve("backlog.yaml")));
    out.flush();
    return ExitCode.OK;
  }

  private static void makeExecutable(Path file) throws IOException {
    try {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: the agent is started as "bash <script>" anyway
    }
  }
}
