package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Project discovery, did-you-mean, logs and completion through the built launcher, from real
 * working directories (the in-process tests cannot change the process's directory).
 */
class CliHabitsIT {
  @TempDir
  Path parent;

  @Test
  void init_sub_then_run_sub_backlog_from_the_parent_uses_subs_project_and_status_finds_it_from_below()
      throws Exception {
    assertEquals(0, Launcher.run(parent, "init").exitCode());
    Launcher.Result init = Launcher.run(parent, "init", "sub");
    assertEquals(0, init.exitCode(), init.err());
    assertTrue(init.out().contains("orchestrate run sub/backlog.yaml"), init.out());

    Launcher.Result run = Launcher.run(parent, "--quiet", "run", "sub/backlog.yaml");
    assertEquals(0, run.exitCode(), run.err());
    assertTrue(Files.isRegularFile(parent.resolve("sub/.orchestrate/state.db")));
    assertFalse(Files.exists(parent.resolve(".orchestrate/state.db")), "the parent's state is untouched");

    Path deeper = Files.createDirectories(parent.resolve("sub/agents/deeper"));
    Launcher.Result status = Launcher.run(deeper, "status");
    assertEquals(0, status.exitCode(), status.err());
    assertTrue(status.out().contains("TASK-1") && status.out().contains("2 items: 2 done"), status.out());

    Launcher.Result logs = Launcher.run(deeper, "logs", "TASK-2");
    assertEquals(0, logs.exitCode(), logs.err());
    assertFalse(logs.out().isBlank(), "the job's output");

    Launcher.Result typo = Launcher.run(deeper, "stauts");
    assertEquals(2, typo.exitCode());
    assertEquals(List.of("orchestrate: error: unknown command 'stauts'; did you mean 'status'? "
        + "(see 'orchestrate --help')"), typo.err().lines().toList());

    Path script = Files.writeString(parent.resolve("orchestrate.bash"),
        Launcher.run(parent, "completion", "bash").out());
    Process bash = new ProcessBuilder("bash", "-c", "source '" + script + "'; COMP_WORDS=('" + Launcher.BIN
        + "' unblock TASK); COMP_CWORD=2; _orchestrate; printf '%s\\n' \"${COMPREPLY[@]}\"")
        .directory(deeper.toFile()).redirectErrorStream(true).start();
    assertTrue(bash.waitFor(60, TimeUnit.SECONDS));
    assertEquals("TASK-1\nTASK-2\n", new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
  }
}
