package dev.orchestrate.scheduler;

import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.jobs.Preflight;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The files an agent may not change (docs/verification.md, "Gates the agent cannot rewrite"): the
 * scripts its pipeline's gates run (every phase's {@code verify:} and the integration gates) and its
 * {@code verify_protected:} paths. An attempt that changes one, in a phase without
 * {@code changes_gates: true}, fails as {@code protected_changed}: its work is not kept, so a gate
 * rewritten to {@code exit 0} never reaches a phase commit, let alone the base branch.
 */
final class ProtectedFiles {
  private ProtectedFiles() {
  }

  /** The files the pipeline's gates run, relative to the backlog's directory, each once. */
  static List<String> scripts(Pipeline pipeline) {
    Set<String> out = new LinkedHashSet<>();
    List<ProjectCommand> gates = new ArrayList<>(pipeline.integrationGates());
    for (PhaseDef phase : pipeline.allPhases()) {
      gates.addAll(pipeline.verifyFor(phase));
    }
    for (ProjectCommand gate : gates) {
      out.addAll(Preflight.projectFiles(gate));
    }
    return List.copyOf(out);
  }

  /** The next prompt's Previous Failure: which files, and what to do. */
  static String failure(List<String> changed) {
    return "You reported the phase complete, but you changed " + String.join(", ", changed) + ", which the "
        + "project's gates run or which the pipeline protects (verify_protected). Those files are not yours to "
        + "change in this phase, so this attempt's work was not kept. Do the task without changing them; if a "
        + "gate itself is wrong, say so (report blocked) instead of editing it.";
  }
}
