package dev.orchestrate.cli;

import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A git project under test, run in-process with its own state and config: {@code <project>/.orchestrate}
 * and {@code <project>/orchestrate.yaml}, as a user in the project would, the flags given explicitly.
 */
final class ProjectCli {
  final GitRepo repo;
  final Path state;

  private ProjectCli(GitRepo repo) {
    this.repo = repo;
    this.state = repo.dir.resolve(".orchestrate");
  }

  /** A new repository at {@code dir} (its first commit made), to be given a backlog and a config. */
  static ProjectCli init(Path dir) {
    return new ProjectCli(GitRepo.init(dir));
  }

  /** {@code orchestrate --state STATE --config CONFIG args...}. */
  CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", state.toString(), "--config",
        repo.dir.resolve("orchestrate.yaml").toString()));
    all.addAll(List.of(args));
    return CliRunner.run(Map.of(), all.toArray(String[]::new));
  }

  /** {@code run BACKLOG --json}, the project's {@code backlog.yaml}. */
  CliRunner.Result run() {
    return cli("run", repo.dir.resolve("backlog.yaml").toString(), "--json");
  }
}
