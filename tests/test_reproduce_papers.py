"""Every claim fed the paper's own published numbers (``Experiment.published``).

A band is read from the paper's words (`lastmile.reproduce.words`); where the paper also
publishes the numbers the claim compares (a table, a ratio in its text, a figure's stated
value), those numbers must pass the band, or the band is mis-read. `paper_claims` runs each
experiment's claims on a context that answers with the published numbers and refuses the
rest (`NotPublished`); this test checks, per experiment, that every claim the numbers reach
holds and that they reach as many claims as the experiment says they do (a claim that stops
asking for a published number would otherwise drop out of this test unnoticed).

No simulation runs here: it takes well under a second.
"""

from __future__ import annotations

import pytest

from lastmile.reproduce import catalogue
from lastmile.reproduce.framework import paper_claims

#: How many claims each experiment's published numbers bear on.
FED: dict[str, int] = {
    "lle-fig5": 5,
    "lle-fig7": 2,
    "lle-fig8-9": 7,
    "lle-fig10": 1,
    "survey-handoff": 2,
    "survey-knobs": 1,
    "survey-mech": 1,
    "fec-arq": 1,
    "survey-table1": 2,
    "tulip-exp1": 7,
    "tulip-exp2": 1,
    "tulip-exp5a": 3,
    "wtcp": 6,
    "wtcp-table2": 2,
    "wtcp-handoff": 3,
}


@pytest.mark.parametrize("name", list(catalogue()))
def test_the_papers_own_numbers_pass_every_claim_they_bear_on(name: str) -> None:
    result = paper_claims(catalogue()[name])
    failing = [c.claim for c in result.claims if not c.holds]
    assert not failing, f"{name}: the paper's own numbers fail {failing}: mis-read bands"
    assert len(result.claims) == FED.get(name, 0), (
        f"{name}: the paper's numbers reach {[c.claim for c in result.claims]}; "
        f"not reached: {result.not_fed}"
    )


def test_a_band_the_papers_numbers_fail_is_caught() -> None:
    from lastmile.reproduce.framework import Context, Experiment, Published, paper_stat

    def mis_read(ctx: Context) -> None:
        # TULIP Table 2's burst-6 gap is 516.1 / 496.4 - 1 = 3.97 %: a 4.0-4.4 % band fails.
        t, s = ctx["t2"].value("kbps", "tulip"), ctx["t2"].value("kbps", "snoop")
        gap = 100 * (t.mean / s.mean - 1)
        ctx.claim("gap", "x", 4.0 <= gap <= 4.4, "", quote="q" * 30, band="4.0-4.4 %")

    exp = Experiment(
        name="x",
        title="x",
        paper="x",
        description="",
        differences="",
        campaigns=lambda quick: (),
        analyse=lambda ctx: None,
        claims=(mis_read,),
        published=Published(
            points=[("t2", "kbps", "tulip", {}, 516.1), ("t2", "kbps", "snoop", {}, 496.4)]
        ),
    )
    result = paper_claims(exp)
    assert [c.holds for c in result.claims] == [False]
    assert paper_stat(1.0).n == 0
