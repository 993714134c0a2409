package dev.orchestrate.item;

/**
 * The in-memory bounded structures of a run session, as measured (docs/architecture.md): recorded with the
 * run so that {@code stats} can show them after the session has ended.
 *
 * @param summaryMapFinal      phase-summary map entries at the end of the run
 * @param summaryMapPeak       the most entries it held at once
 * @param jobTablePeakActive   the most active jobs in the job table at once
 * @param jobTablePeakInactive the most inactive (ended) jobs it kept at once
 * @param jobTableFinal        jobs in the table at the end of the run
 */
public record RunFigures(int summaryMapFinal, int summaryMapPeak, int jobTablePeakActive,
    int jobTablePeakInactive, int jobTableFinal) {
  public static final RunFigures NONE = new RunFigures(0, 0, 0, 0, 0);
}
