/**
 * A2A tasks (docs/design/callers.md): threads of executions an agent reads back.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export {
  findTask,
  listTasks,
  type StoredTaskMessage,
  TASK_COMPLETED,
  type TaskQuery,
  type TaskRow,
  taskWrite,
} from './service';
