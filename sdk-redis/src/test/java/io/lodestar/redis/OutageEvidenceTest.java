package io.lodestar.redis;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class OutageEvidenceTest {
    private final OutageEvidence evidence = new OutageEvidence();

    @Test
    void noEvidenceIsNothingToNote() {
        assertThat(evidence.toNote()).isNull();
    }

    @Test
    void anOutageIsNotedFromTheEarliestEvidenceOfIt() {
        long now = System.nanoTime();
        evidence.seen(now - TimeUnit.SECONDS.toNanos(3));
        evidence.seen(now - TimeUnit.SECONDS.toNanos(5));
        evidence.seen(now - TimeUnit.SECONDS.toNanos(1));

        assertThat(evidence.toNote().agoMillis()).isBetween(5_000L, 6_000L);
    }

    @Test
    void aNotedOutageWithNoLaterEvidenceIsOver() {
        evidence.seen(System.nanoTime());
        OutageEvidence.Note note = evidence.toNote();

        evidence.noted(note);

        assertThat(evidence.toNote()).isNull();
    }

    @Test
    void anOutageThatGoesOnAfterItsNoteIsNotedAgainFromTheSameBeginning() {
        long began = System.nanoTime() - TimeUnit.SECONDS.toNanos(4);
        evidence.seen(began);
        OutageEvidence.Note first = evidence.toNote();
        evidence.seen(System.nanoTime()); // a renewal failed again after the note was taken

        evidence.noted(first);

        assertThat(evidence.toNote().agoMillis()).isGreaterThanOrEqualTo(4_000L);
    }
}
