-- The tables `SQLModel.metadata.create_all` created at commit d25d9fd (postgresql): the schema of a
-- database made by that release, before migrations existed. Generated once from
-- `git show d25d9fd:annotate/models.py` (SQLModel 0.0.50, SQLAlchemy 2.1.9, a mock engine).

CREATE TABLE study (
	id SERIAL NOT NULL,
	name VARCHAR NOT NULL,
	seed INTEGER NOT NULL,
	scale_min INTEGER NOT NULL,
	scale_max INTEGER NOT NULL,
	anchors JSON NOT NULL,
	dimension_labels JSON NOT NULL,
	dimension_definitions JSON NOT NULL,
	guidelines TEXT NOT NULL,
	equivalence_margin FLOAT NOT NULL,
	completion_code VARCHAR,
	overlap INTEGER NOT NULL,
	reservation_minutes INTEGER NOT NULL,
	gold_rate FLOAT NOT NULL,
	created_at TIMESTAMP WITH TIME ZONE NOT NULL,
	PRIMARY KEY (id)
);

CREATE UNIQUE INDEX ix_study_name ON study (name);

CREATE TABLE annotator (
	id SERIAL NOT NULL,
	name VARCHAR NOT NULL,
	role VARCHAR NOT NULL,
	token_hash VARCHAR NOT NULL,
	active BOOLEAN NOT NULL,
	external_id VARCHAR,
	created_at TIMESTAMP WITH TIME ZONE NOT NULL,
	PRIMARY KEY (id),
	UNIQUE (external_id)
);

CREATE UNIQUE INDEX ix_annotator_name ON annotator (name);

CREATE UNIQUE INDEX ix_annotator_token_hash ON annotator (token_hash);

CREATE TABLE pair (
	id SERIAL NOT NULL,
	study_id INTEGER NOT NULL,
	record_id VARCHAR NOT NULL,
	domain VARCHAR NOT NULL,
	category VARCHAR NOT NULL,
	question TEXT NOT NULL,
	narrative TEXT NOT NULL,
	profile JSON NOT NULL,
	rubric_aspects JSON NOT NULL,
	chosen TEXT NOT NULL,
	rejected TEXT NOT NULL,
	extra JSON NOT NULL,
	content_hash VARCHAR NOT NULL,
	gold_preference VARCHAR,
	created_at TIMESTAMP WITH TIME ZONE NOT NULL,
	PRIMARY KEY (id),
	CONSTRAINT uq_pair_study_record UNIQUE (study_id, record_id),
	FOREIGN KEY(study_id) REFERENCES study (id)
);

CREATE INDEX ix_pair_study_id ON pair (study_id);

CREATE INDEX ix_pair_domain ON pair (domain);

CREATE TABLE assignment (
	id SERIAL NOT NULL,
	study_id INTEGER NOT NULL,
	annotator_id INTEGER NOT NULL,
	pair_id INTEGER NOT NULL,
	position INTEGER NOT NULL,
	chosen_side VARCHAR NOT NULL,
	status VARCHAR NOT NULL,
	reserved_until TIMESTAMP WITH TIME ZONE,
	skip_reason VARCHAR,
	flagged BOOLEAN NOT NULL,
	flag_reason VARCHAR,
	comment VARCHAR,
	completed_at TIMESTAMP WITH TIME ZONE,
	created_at TIMESTAMP WITH TIME ZONE NOT NULL,
	PRIMARY KEY (id),
	CONSTRAINT uq_assignment_annotator_pair UNIQUE (annotator_id, pair_id),
	FOREIGN KEY(study_id) REFERENCES study (id),
	FOREIGN KEY(annotator_id) REFERENCES annotator (id),
	FOREIGN KEY(pair_id) REFERENCES pair (id)
);

CREATE INDEX ix_assignment_pair_id ON assignment (pair_id);

CREATE INDEX ix_assignment_study_id ON assignment (study_id);

CREATE INDEX ix_assignment_queue ON assignment (annotator_id, study_id, position);

CREATE TABLE rating (
	id SERIAL NOT NULL,
	assignment_id INTEGER NOT NULL,
	response VARCHAR NOT NULL,
	dimension VARCHAR NOT NULL,
	score INTEGER NOT NULL,
	seconds FLOAT NOT NULL,
	revision INTEGER NOT NULL,
	created_at TIMESTAMP WITH TIME ZONE NOT NULL,
	updated_at TIMESTAMP WITH TIME ZONE NOT NULL,
	PRIMARY KEY (id),
	CONSTRAINT uq_rating_score UNIQUE (assignment_id, response, dimension),
	FOREIGN KEY(assignment_id) REFERENCES assignment (id)
);

CREATE INDEX ix_rating_assignment_id ON rating (assignment_id);

CREATE TABLE ratingrevision (
	id SERIAL NOT NULL,
	rating_id INTEGER NOT NULL,
	revision INTEGER NOT NULL,
	score INTEGER NOT NULL,
	seconds FLOAT NOT NULL,
	created_at TIMESTAMP WITH TIME ZONE NOT NULL,
	replaced_at TIMESTAMP WITH TIME ZONE NOT NULL,
	PRIMARY KEY (id),
	FOREIGN KEY(rating_id) REFERENCES rating (id)
);

CREATE INDEX ix_ratingrevision_rating_id ON ratingrevision (rating_id);
