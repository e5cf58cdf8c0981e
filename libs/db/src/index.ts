export * from './prisma-client';
export * from './job-repository';
export * from './api-key-repository';
export * from './fetched-document-repository';
export * from './migrator';
export * from './project-root';
export * from './db.module';
export * from './llm-answer-repository';
