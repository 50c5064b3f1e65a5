"""lastmile's validation suite: scenarios run in lastmile and in a reference simulator
(ns-2.35 or ns-3.44) with every setting matched, compared in `docs/validation.md`."""
