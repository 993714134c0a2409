package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.config.SandboxConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sandbox's argv: what is writable, what is hidden, in which order; and preflight's refusals. */
class BubblewrapTest {
  @TempDir
  Path dir;

  @Test
  void a_worktree_inside_the_hidden_state_is_bound_after_the_state_and_the_checkouts_git_stays_read_only()
      throws Exception {
    Path checkout = Files.createDirectories(dir.resolve("checkout"));
    Files.createDirectories(checkout.resolve(".git"));
    Path state = checkout.resolve(".orchestrate");
    Path worktree = Files.createDirectories(state.resolve("worktrees/A"));
    Path job = Files.createDirectories(state.resolve("jobs/run1-0001-A-build-1"));
    Path home = Files.createDirectories(dir.resolve("home"));
    Bubblewrap box = new Bubblewrap(Path.of("/usr/bin/bwrap"), new SandboxConfig(SandboxConfig.Kind.BWRAP,
        List.of("~/.npm", "/opt/cache"), false));

    List<String> argv = box.argv(List.of("/usr/bin/claude", "-p"), worktree, job, AgentPreset.CLAUDE,
        Map.of("HOME", home.toString()), false);

    Path s = state.toRealPath();
    Path h = home.toRealPath();
    assertEquals(List.of("/usr/bin/bwrap", "--die-with-parent", "--unshare-pid", "--ro-bind", "/", "/", "--dev",
        "/dev", "--proc", "/proc",
        "--bind-try", "/opt/cache", "/opt/cache",
        "--tmpfs", s.toString(),
        "--bind-try", h.resolve(".claude").toString(), h.resolve(".claude").toString(),
        "--bind-try", h.resolve(".claude.json").toString(), h.resolve(".claude.json").toString(),
        "--bind-try", h.resolve(".npm").toString(), h.resolve(".npm").toString(),
        "--bind", s.resolve("worktrees/A").toString(), s.resolve("worktrees/A").toString(),
        "--bind", s.resolve("jobs/run1-0001-A-build-1").toString(), s.resolve("jobs/run1-0001-A-build-1").toString(),
        "--", "/usr/bin/claude", "-p"), argv);
  }

  @Test
  void in_the_shared_workspace_the_checkout_is_writable_but_its_git_and_the_state_are_not_and_gates_lose_the_net()
      throws Exception {
    Path checkout = Files.createDirectories(dir.resolve("checkout"));
    Files.createDirectories(checkout.resolve(".git"));
    Path job = Files.createDirectories(checkout.resolve(".orchestrate/jobs/run1-0001-A-build-1"));
    Bubblewrap box = new Bubblewrap(Path.of("/usr/bin/bwrap"), new SandboxConfig(SandboxConfig.Kind.BWRAP,
        List.of(), false));

    List<String> argv = box.argv(List.of("make", "test"), checkout, job, AgentPreset.COMMAND, Map.of(), true);

    String c = checkout.toRealPath().toString();
    assertTrue(argv.contains("--unshare-net"), argv.toString());
    assertEquals(List.of("--bind", c, c, "--ro-bind", c + "/.git", c + "/.git", "--tmpfs", c + "/.orchestrate",
        "--bind", c + "/.orchestrate/jobs/run1-0001-A-build-1", c + "/.orchestrate/jobs/run1-0001-A-build-1", "--",
        "make", "test"), argv.subList(argv.indexOf("--proc") + 3, argv.size()));
    assertTrue(!box.argv(List.of("x"), checkout, job, AgentPreset.COMMAND, Map.of(), false).contains("--unshare-net"),
        "the agent keeps the network: it talks to its model");
  }

  @Test
  void bwrap_is_found_only_on_absolute_path_entries() throws Exception {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path fake = bin.resolve("bwrap");
    Files.writeString(fake, "#!/bin/sh\n");
    fake.toFile().setExecutable(true);

    assertEquals(Optional.of(fake.toRealPath()), Bubblewrap.find("relative/bin:" + bin));
    assertEquals(Optional.empty(), Bubblewrap.find("bin:/nonexistent"));
  }

  @Test
  void preflight_refuses_a_sandbox_without_bwrap_and_codexs_own_sandbox_inside_it() {
    AgentConfig plain = TestAgents.config(List.of("/bin/true")).withSandbox(new SandboxConfig(
        SandboxConfig.Kind.BWRAP, List.of(), true));
    assertTrue(Preflight.sandbox(plain, "/nonexistent").message()
        .startsWith("agent.sandbox: bwrap needs bubblewrap, and no bwrap is on PATH: install it"));
    assertNull(Preflight.sandbox(TestAgents.config(List.of("/bin/true")), "/nonexistent"), "no sandbox asked for");

    AgentConfig codex = new AgentConfig(AgentPreset.CODEX.argv(List.of(), List.of("--sandbox", "workspace-write")),
        plain.timeout(), plain.killGrace(), Map.of(), plain.resultFallback(), plain.logMaxBytes(),
        plain.outputTailChars(), AgentPreset.CODEX, List.of("--sandbox", "workspace-write"), null)
        .withSandbox(plain.sandbox());
    assertTrue(Preflight.sandbox(codex, "/nonexistent").message().contains("pass --sandbox danger-full-access"),
        Preflight.sandbox(codex, "/nonexistent").message());
  }

  @Test
  void credential_stores_in_home_and_listed_paths_are_hidden_after_the_writable_ones() throws Exception {
    Path home = Files.createDirectories(dir.resolve("home"));
    Files.createDirectories(home.resolve(".ssh"));
    Files.writeString(home.resolve(".netrc"), "machine x password y\n");
    Files.createDirectories(home.resolve("secrets"));
    Path job = Files.createDirectories(dir.resolve("state/jobs/run1-0001-A-build-1"));
    Bubblewrap box = new Bubblewrap(Path.of("/usr/bin/bwrap"), new SandboxConfig(SandboxConfig.Kind.BWRAP,
        List.of(), true, List.of("~/secrets", "~/missing")));

    List<String> argv = box.argv(List.of("x"), dir, job, AgentPreset.COMMAND, Map.of("HOME", home.toString()), false);

    String h = home.toString();
    String joined = String.join(" ", argv);
    assertTrue(joined.contains("--tmpfs " + h + "/.ssh"), joined);
    assertTrue(joined.contains("--ro-bind /dev/null " + h + "/.netrc"), joined);
    assertTrue(joined.contains("--tmpfs " + h + "/secrets"), joined);
    assertTrue(!joined.contains("missing") && !joined.contains(".aws"), "what does not exist is left out: " + joined);
  }

  @Test
  void a_credential_store_listed_as_writable_is_passed_on_explicitly() throws Exception {
    Path home = Files.createDirectories(dir.resolve("home"));
    Files.writeString(home.resolve(".npmrc"), "//registry.example/:_authToken=x\n");
    Path job = Files.createDirectories(dir.resolve("state/jobs/run1-0001-A-build-1"));
    Bubblewrap box = new Bubblewrap(Path.of("/usr/bin/bwrap"), new SandboxConfig(SandboxConfig.Kind.BWRAP,
        List.of("~/.npmrc"), true, List.of()));

    String joined = String.join(" ", box.argv(List.of("x"), dir, job, AgentPreset.COMMAND,
        Map.of("HOME", home.toString()), true));

    assertTrue(joined.contains("--bind-try " + home + "/.npmrc " + home + "/.npmrc"), joined);
    assertTrue(!joined.contains("/dev/null"), "not hidden: " + joined);
  }
}
