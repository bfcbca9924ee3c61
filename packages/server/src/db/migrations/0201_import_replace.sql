-- An import may replace an existing dataset's rows: it loads beside the old table and swaps at the end.
ALTER TABLE dataset_imports ADD COLUMN replaces boolean NOT NULL DEFAULT false;
